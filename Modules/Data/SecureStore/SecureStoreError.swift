/// Why a secure-store operation failed. Messages say what happened and what to do; none carries a
/// secret or an attribute value read from the store.
public enum SecureStoreError: Error, Sendable, Equatable {
    /// No item matched the query.
    case itemNotFound
    /// An item with the same unique key already exists (or an update would create a second one).
    case duplicateItem
    /// The class does not allow this attribute.
    case attributeNotAllowed(AttributeName, ItemClass)
    /// The value has the wrong kind for the attribute.
    case invalidAttributeValue(AttributeName, expected: AttributeValue.Kind)
    /// Only the store may set this attribute (the creation and modification dates).
    case readOnlyAttribute(AttributeName)
    /// An update tried to change an item's class.
    case classMismatch(ItemClass, ItemClass)
    /// The handle does not belong to the access group the caller named.
    case missingEntitlement(accessGroup: String)
    /// The secret is not valid UTF-8 (it was asked for as a string), or a value could not be decoded.
    case invalidData(String)
    /// The store is locked: its keys were wiped. Unlock it and try again.
    case locked
    /// The passphrase or key does not unlock this store. Nothing was changed.
    case wrongKey
    /// The store was made for another kind of key (a passphrase rather than a key file, say).
    case keySourceMismatch(expected: ProtectionKind)
    /// The key material could not be used (a key file of the wrong size, an empty passphrase).
    case invalidKeyMaterial(String)
    /// Data failed its integrity check: the file is damaged or was tampered with.
    case integrityFailure(String)
    /// A file or directory is readable by others, is a symbolic link, or belongs to another user.
    case insecurePermissions(path: String, fix: String)
    /// The database, the file system or the crypto library failed: see ``StorageFailure``.
    case storage(StorageFailure)

    /// Whether the store could not be read at all (locked or damaged), as opposed to an answer.
    ///
    /// Callers deciding whether a user is signed in must treat this as "unknown", never as
    /// "signed out".
    public var isUnavailable: Bool {
        switch self {
        case .locked, .wrongKey, .keySourceMismatch, .invalidKeyMaterial, .integrityFailure, .insecurePermissions,
            .storage:
            true
        default:
            false
        }
    }
}

extension SecureStoreError: CustomStringConvertible {
    /// One line saying what happened and what to do next.
    public var description: String {
        switch self {
        case .itemNotFound:
            "The specified item could not be found in the keychain. Check the attributes and the access group."
        case .duplicateItem:
            "The specified item already exists in the keychain. Update it instead."
        case .attributeNotAllowed(let name, let itemClass):
            "A \(itemClass.name) item has no attribute '\(name.key)'. Allowed: "
                + itemClass.allowedAttributes.sorted().map(\.key).joined(separator: ", ") + "."
        case .invalidAttributeValue(let name, let kind):
            "Attribute '\(name.key)' takes a value of kind \(kind)."
        case .readOnlyAttribute(let name):
            "Attribute '\(name.key)' is kept by the store and cannot be set."
        case .classMismatch(let from, let to):
            "An update cannot turn a \(from.name) into a \(to.name); delete and add instead."
        case .missingEntitlement(let group):
            "This client does not belong to access group '\(group)'. Open the store with that group or leave "
                + "the group out."
        case .invalidData(let reason):
            "The item's data could not be decoded: \(reason)."
        case .locked:
            "The store is locked. Unlock it with its passphrase or key and try again."
        case .wrongKey:
            "The passphrase or key does not unlock this store (or its header was altered). Nothing was changed; "
                + "try again with the right one."
        case .keySourceMismatch(let expected):
            "This store is protected by \(expected.phrase); give that instead."
        case .invalidKeyMaterial(let reason):
            "The key material cannot be used: \(reason)."
        case .integrityFailure(let what):
            "Integrity check failed: \(what). The store is damaged or was tampered with; restore it from a "
                + "backup, or salvage every item that still authenticates into a new store."
        case .insecurePermissions(let path, let fix):
            "Refusing to use \(path): \(fix)"
        case .storage(let failure):
            "The store failed: \(failure)"
        }
    }
}
