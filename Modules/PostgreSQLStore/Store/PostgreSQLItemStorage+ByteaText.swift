import Data
/// The text forms of `bytea` the store sends as literals (blind indexes, digests and ciphertexts,
/// never a plaintext) and reads back from simple queries.
extension PostgreSQLItemStorage {
    /// `bytes` as a `bytea` literal (an index or a digest: keyed hashes, never a secret).
    static func literal(_ bytes: [UInt8]) -> String { "'\\x\(Hex.lowercase(bytes))'::bytea" }

    /// The bytes of `bytea` in the server's hex text form (`\x0a1b…`).
    static func bytea(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count >= 2, digits[0] == UInt8(ascii: "\\"), digits[1] == UInt8(ascii: "x"), digits.count % 2 == 0
        else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((digits.count - 2) / 2)
        func nibble(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        var index = 2
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}
