/// The name of one item attribute. Raw values are stable: they are written into store files.
public enum AttributeName: UInt8, Sendable, CaseIterable, Hashable, Comparable {
    /// The access group the item belongs to (`kSecAttrAccessGroup`).
    case accessGroup = 1
    /// A user-visible label.
    case label = 2
    /// A user-editable comment.
    case comment = 3
    /// A user-visible description of the kind of item (`kSecAttrDescription`).
    case description = 4
    /// Application-defined bytes (`kSecAttrGeneric`).
    case generic = 5
    /// When the item was added; kept by the store, read-only.
    case creationDate = 6
    /// When the item last changed; kept by the store, read-only.
    case modificationDate = 7
    /// The service a generic password belongs to.
    case service = 10
    /// The account name.
    case account = 11
    /// The server (host name or address) of an internet password.
    case server = 12
    /// The protocol of an internet password, such as `https`.
    case `protocol` = 13
    /// The port of an internet password.
    case port = 14
    /// The path of an internet password.
    case path = 15
    /// The security domain (realm) of an internet password.
    case securityDomain = 16
    /// The authentication scheme of an internet password, such as `httpbasic`.
    case authenticationType = 17
    /// The certificate type (an integer, as `CSSM_CERT_TYPE`).
    case certificateType = 20
    /// The DER-encoded issuer of a certificate.
    case issuer = 21
    /// The DER-encoded serial number of a certificate.
    case serialNumber = 22
    /// The DER-encoded subject of a certificate.
    case subject = 23
    /// Whether a key is public, private or symmetric.
    case keyClass = 30
    /// The algorithm of a key, such as `ec` or `ed25519`.
    case keyType = 31
    /// The application label of a key (often a hash of its public key).
    case applicationLabel = 32
    /// Application-defined tag bytes of a key.
    case applicationTag = 33
    /// The size of a key in bits.
    case keySizeInBits = 34

    /// The kind of value this attribute holds.
    public var valueKind: AttributeValue.Kind {
        switch self {
        case .generic, .issuer, .serialNumber, .subject, .applicationLabel, .applicationTag: .bytes
        case .port, .certificateType, .keySizeInBits: .integer
        case .creationDate, .modificationDate: .date
        default: .string
        }
    }

    /// Whether only the store may set this attribute.
    public var isReadOnly: Bool { self == .creationDate || self == .modificationDate }

    /// The name used in command-line output and JSON dumps.
    public var key: String {
        switch self {
        case .accessGroup: "accessGroup"
        case .label: "label"
        case .comment: "comment"
        case .description: "description"
        case .generic: "generic"
        case .creationDate: "creationDate"
        case .modificationDate: "modificationDate"
        case .service: "service"
        case .account: "account"
        case .server: "server"
        case .protocol: "protocol"
        case .port: "port"
        case .path: "path"
        case .securityDomain: "securityDomain"
        case .authenticationType: "authenticationType"
        case .certificateType: "certificateType"
        case .issuer: "issuer"
        case .serialNumber: "serialNumber"
        case .subject: "subject"
        case .keyClass: "keyClass"
        case .keyType: "keyType"
        case .applicationLabel: "applicationLabel"
        case .applicationTag: "applicationTag"
        case .keySizeInBits: "keySizeInBits"
        }
    }

    /// Orders names by their stable raw value.
    public static func < (lhs: AttributeName, rhs: AttributeName) -> Bool { lhs.rawValue < rhs.rawValue }
}
