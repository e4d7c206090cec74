/// Lowercase hexadecimal text of bytes, two digits a byte, written straight into the string (no
/// `String(format:)`, no array per byte): session ids, key fingerprints and `bytea` literals on hot paths.
package enum Hex {
    /// `bytes` as lowercase hexadecimal digits. Inlinable, so that the caller's bytes are read in place:
    /// unspecialized, each byte went through the collection's witnesses, with an allocation or more each.
    @inlinable
    package static func lowercase(_ bytes: some Collection<UInt8>) -> String {
        bytes.withContiguousStorageIfAvailable { lowercase(UnsafeRawBufferPointer($0)) }
            ?? Array(bytes).withUnsafeBytes { lowercase($0) }
    }

    /// `bytes` as lowercase hexadecimal digits.
    @usableFromInline
    static func lowercase(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { text in
            var index = 0
            for byte in bytes {
                text[index] = digit(byte >> 4)
                text[index + 1] = digit(byte & 15)
                index += 2
            }
            return index
        }
    }

    private static func digit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}
