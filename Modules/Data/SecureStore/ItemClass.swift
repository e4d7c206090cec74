/// The five kinds of item a secure store keeps, as in Keychain Services.
///
/// The class decides which attributes an item may carry and which of them form its unique key.
public enum ItemClass: UInt8, Sendable, CaseIterable, Hashable {
    /// A password for an app or service, keyed by service and account (`kSecClassGenericPassword`).
    case genericPassword = 1
    /// A password for a network resource, keyed by server, protocol, port, path and account.
    case internetPassword = 2
    /// A certificate, keyed by certificate type, issuer and serial number.
    case certificate = 3
    /// A cryptographic key, keyed by key class, key type, application label and tag, and size.
    case key = 4
    /// A certificate with its private key, keyed like a certificate.
    case identity = 5

    /// Attributes that every class allows: the access group and the descriptive ones.
    public static let commonAttributes: Set<AttributeName> = [
        .accessGroup, .label, .comment, .description, .generic, .creationDate, .modificationDate,
    ]

    /// The attributes that together identify one item of this class within an access group.
    ///
    /// Two items of one class may not share all of these values; adding a second one is a
    /// duplicate-item error. The access group is always part of the key.
    public var uniqueKey: [AttributeName] {
        switch self {
        case .genericPassword: Self.genericPasswordKey
        case .internetPassword: Self.internetPasswordKey
        case .certificate, .identity: Self.certificateKey
        case .key: Self.keyKey
        }
    }

    /// Every attribute an item of this class may carry.
    public var allowedAttributes: Set<AttributeName> {
        var allowed = Self.commonAttributes.union(uniqueKey)
        if self == .certificate || self == .identity { allowed.insert(.subject) }
        return allowed
    }

    /// Whether an item of this class may carry `name`: `allowedAttributes.contains(name)` without
    /// building a set, for checks made on every store operation.
    public func allows(_ name: AttributeName) -> Bool {
        Self.allowedBits[Int(rawValue)] & (1 << UInt64(name.rawValue)) != 0
    }

    // The unique keys, built once rather than on every call.
    private static let genericPasswordKey: [AttributeName] = [.accessGroup, .service, .account]
    private static let internetPasswordKey: [AttributeName] = [
        .accessGroup, .server, .protocol, .port, .path, .account, .securityDomain, .authenticationType,
    ]
    private static let certificateKey: [AttributeName] = [.accessGroup, .certificateType, .issuer, .serialNumber]
    private static let keyKey: [AttributeName] = [
        .accessGroup, .keyClass, .keyType, .applicationLabel, .applicationTag, .keySizeInBits,
    ]

    /// `allowedAttributes` of each class as a bit set (bit `rawValue` of each name), by class raw value.
    private static let allowedBits: [UInt64] = {
        var bits = [UInt64](repeating: 0, count: Int(allCases.map(\.rawValue).max()!) + 1)
        for itemClass in allCases {
            for name in itemClass.allowedAttributes { bits[Int(itemClass.rawValue)] |= 1 << UInt64(name.rawValue) }
        }
        return bits
    }()

    /// The attribute most queries name on their own (service, server, issuer, application tag);
    /// the store keeps a blind index of it so such queries do not scan every item.
    public var primaryAttribute: AttributeName {
        switch self {
        case .genericPassword: .service
        case .internetPassword: .server
        case .certificate, .identity: .issuer
        case .key: .applicationTag
        }
    }

    /// A human name, as `security` prints it.
    public var name: String {
        switch self {
        case .genericPassword: "generic password"
        case .internetPassword: "internet password"
        case .certificate: "certificate"
        case .key: "key"
        case .identity: "identity"
        }
    }
}
