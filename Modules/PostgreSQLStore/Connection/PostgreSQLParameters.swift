/// Parameters in libpq's shape: type OIDs, one contiguous buffer of binary values, their lengths and
/// formats (all binary). The buffer is zeroed once libpq has copied it.
struct PostgreSQLParameters {
    let types: [UInt32]
    private var buffer: [UInt8] = []
    /// Each value's offset in `buffer`, or `nil` for NULL.
    private var offsets: [Int?] = []
    private var lengths: [Int32] = []

    init(_ values: [PostgreSQLValue]) {
        types = values.map(\.typeOID)
        for value in values {
            let start = buffer.count
            let present = value.appendBinary(to: &buffer)
            offsets.append(present ? start : nil)
            lengths.append(Int32(buffer.count - start))
        }
        // One byte more, so even an empty value has a non-null address (NULL is a null pointer).
        buffer.append(0)
    }

    /// Calls `body` with the C arrays libpq takes (`paramValues`, `paramLengths`, `paramFormats`),
    /// valid only during the call, then zeroes the values.
    mutating func withCArrays<R>(
        _ body: (
            _ values: UnsafePointer<UnsafePointer<CChar>?>, _ lengths: UnsafePointer<Int32>,
            _ formats: UnsafePointer<Int32>
        ) -> R
    ) -> R {
        let formats = [Int32](repeating: 1, count: max(1, offsets.count))
        let lengths = self.lengths + [0]
        let offsets = self.offsets
        defer {
            // The values may be secret; libpq has its own copy by now.
            _ = buffer.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) }
        }
        return buffer.withUnsafeBufferPointer { bytes in
            let base = UnsafeRawPointer(bytes.baseAddress!)
            let pointers: [UnsafePointer<CChar>?] =
                offsets.map { offset in offset.map { (base + $0).assumingMemoryBound(to: CChar.self) } } + [nil]
            return pointers.withUnsafeBufferPointer { values in
                lengths.withUnsafeBufferPointer { lengths in
                    formats.withUnsafeBufferPointer { formats in
                        body(values.baseAddress!, lengths.baseAddress!, formats.baseAddress!)
                    }
                }
            }
        }
    }
}
