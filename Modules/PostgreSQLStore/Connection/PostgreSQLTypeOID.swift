/// The object identifiers of the built-in types this layer sends and reads (`pg_type.oid`, fixed
/// since PostgreSQL 7).
enum PostgreSQLTypeOID {
    static let bool: UInt32 = 16
    static let bytea: UInt32 = 17
    static let name: UInt32 = 19
    static let int8: UInt32 = 20
    static let int2: UInt32 = 21
    static let int4: UInt32 = 23
    static let text: UInt32 = 25
    static let bpchar: UInt32 = 1042
    static let varchar: UInt32 = 1043

    /// The type's name for messages.
    static func name(of oid: UInt32) -> String {
        switch oid {
        case bool: "bool"
        case bytea: "bytea"
        case name: "name"
        case int8: "int8"
        case int2: "int2"
        case int4: "int4"
        case text: "text"
        case bpchar: "bpchar"
        case varchar: "varchar"
        default: "type \(oid)"
        }
    }
}
