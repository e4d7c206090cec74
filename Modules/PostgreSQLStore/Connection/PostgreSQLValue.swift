/// A parameter bound to a query, sent to the server in binary.
///
/// Its text form names the type and size, never the value: parameters carry ciphertexts, blind
/// indexes and other bytes that must not reach a log.
@_spi(HardtackTools) public enum PostgreSQLValue: Sendable, Equatable {
    /// SQL NULL, of a type the server infers from the statement.
    case null
    /// `bytea`.
    case bytes([UInt8])
    /// `int8` (`bigint`).
    case int64(Int64)
    /// `int4` (`integer`).
    case int32(Int32)
    /// `bool`.
    case bool(Bool)
    /// `text`, UTF-8.
    case text(String)

    /// The type the value is sent as (0: let the server infer it).
    var typeOID: UInt32 {
        switch self {
        case .null: 0
        case .bytes: PostgreSQLTypeOID.bytea
        case .int64: PostgreSQLTypeOID.int8
        case .int32: PostgreSQLTypeOID.int4
        case .bool: PostgreSQLTypeOID.bool
        case .text: PostgreSQLTypeOID.text
        }
    }

    /// Appends the value's binary wire form (big-endian integers, raw bytes, UTF-8); `false` for NULL,
    /// which has none.
    func appendBinary(to buffer: inout [UInt8]) -> Bool {
        switch self {
        case .null: return false
        case .bytes(let bytes): buffer += bytes
        case .int64(let value): withUnsafeBytes(of: value.bigEndian) { buffer += $0 }
        case .int32(let value): withUnsafeBytes(of: value.bigEndian) { buffer += $0 }
        case .bool(let value): buffer.append(value ? 1 : 0)
        case .text(let value): buffer += Array(value.utf8)
        }
        return true
    }
}

extension PostgreSQLValue: CustomStringConvertible {
    /// The type and size only, never the value.
    @_spi(HardtackTools) public var description: String {
        switch self {
        case .null: "NULL"
        case .bytes(let bytes): "bytea(\(bytes.count) bytes)"
        case .int64: "int8"
        case .int32: "int4"
        case .bool: "bool"
        case .text(let text): "text(\(text.utf8.count) bytes)"
        }
    }
}
