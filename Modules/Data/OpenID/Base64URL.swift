package import Foundation

/// Base64url without padding (RFC 4648 §5, RFC 7515 §2), as JWS, JWTs, PKCE and opaque tokens write bytes.
/// Decoding accepts the one canonical spelling only (no padding, no `+`, `/` or spaces, no stray bits in
/// the last character), so a token or signature has exactly one accepted form. Both work on bytes with
/// tables: the gateway opens a session's sealed tokens on every call.
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    /// Each byte's value in ``alphabet``, or 0xFF for a byte outside it.
    private static let values: [UInt8] = {
        var values = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in alphabet.enumerated() { values[Int(byte)] = UInt8(value) }
        return values
    }()

    /// The unpadded base64url text of `bytes`.
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let input = Array(bytes)
        var output = [UInt8]()
        output.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            output += [
                alphabet[Int(group >> 18)], alphabet[Int(group >> 12 & 63)], alphabet[Int(group >> 6 & 63)],
                alphabet[Int(group & 63)],
            ]
            index += 3
        }
        switch input.count - index {
        case 1:
            let group = UInt32(input[index]) << 16
            output += [alphabet[Int(group >> 18)], alphabet[Int(group >> 12 & 63)]]
        case 2:
            let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            output += [alphabet[Int(group >> 18)], alphabet[Int(group >> 12 & 63)], alphabet[Int(group >> 6 & 63)]]
        default: break
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of canonical unpadded base64url `text`, or `nil` when it is anything else.
    package static func decode(_ text: some StringProtocol) -> Data? {
        decodedBytes(text).map { Data($0) }
    }

    /// ``decode(_:)`` as an array, which a caller holding a secret can zero once done with it.
    package static func decodedBytes(_ text: some StringProtocol) -> [UInt8]? {
        var string = String(text)
        return string.withUTF8 { decode(bytes: $0) }
    }

    private static func decode(bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var output = [UInt8]()
        output.reserveCapacity(bytes.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in bytes {
            let value = values[Int(byte)]
            guard value != 0xFF else { return zeroed(&output) }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // Six bits left over (a length of 4n + 1) make no byte; the bits past the last byte must be zero.
        guard bits < 6, accumulator == 0 else { return zeroed(&output) }
        return output
    }

    /// `nil`, once the bytes decoded so far are overwritten (a refused text may still hold a secret).
    private static func zeroed(_ output: inout [UInt8]) -> [UInt8]? {
        output.withUnsafeMutableBytes { bytes in _ = bytes.initializeMemory(as: UInt8.self, repeating: 0) }
        return nil
    }
}
