import COpenSSL
import Foundation

/// An owned `BIGNUM`, freed (and cleared) on deinit. Confined to the call that made it.
final class BigNumber {
    let pointer: OpaquePointer

    /// The non-negative number whose big-endian bytes are `bytes` (at most 1024 of them).
    init(_ bytes: some Collection<UInt8>) throws(LibCryptoError) {
        let bytes = Array(bytes)
        guard (1...1024).contains(bytes.count) else { throw .invalidSize("a number of \(bytes.count) bytes") }
        guard let pointer = BN_bin2bn(bytes, Int32(bytes.count), nil) else { throw LibCrypto.failure("BN_bin2bn") }
        self.pointer = pointer
    }

    /// Takes ownership of `pointer`.
    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// The number as exactly `width` big-endian bytes (left-padded), or an error when it needs more.
    func bytes(width: Int) throws(LibCryptoError) -> Data {
        guard (1...1024).contains(width), (Int(BN_num_bits(pointer)) + 7) / 8 <= width else {
            throw .invalidSize("a number wider than \(width) bytes")
        }
        var out = [UInt8](repeating: 0, count: width)
        guard BN_bn2binpad(pointer, &out, Int32(width)) == Int32(width) else { throw LibCrypto.failure("BN_bn2binpad") }
        return Data(out)
    }

    /// The number's minimal big-endian bytes.
    func minimalBytes() throws(LibCryptoError) -> Data {
        try bytes(width: max(1, (Int(BN_num_bits(pointer)) + 7) / 8))
    }

    deinit { BN_clear_free(pointer) }
}
