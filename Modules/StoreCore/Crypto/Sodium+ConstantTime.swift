internal import CSodium

/// StoreCore's one comparison of keyed values, in time that does not depend on where they differ.
extension Sodium {
    /// Whether `lhs` and `rhs` hold the same bytes, compared with `sodium_memcmp` in time that does not
    /// depend on where they differ: the one comparison StoreCore uses for a keyed value (a blind index,
    /// a row hash, a rows digest, an export's key check or header MAC). The lengths are compared first,
    /// in the open: a keyed value's length is fixed by its kind, never secret.
    package static func constantTimeEquals(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard let left = lhs.baseAddress, let right = rhs.baseAddress else { return true }
        return sodium_memcmp(left, right, lhs.count) == 0
    }

    /// Whether the byte arrays `lhs` and `rhs` are equal; see ``constantTimeEquals(_:_:)-pointer``.
    package static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        lhs.withUnsafeBytes { left in rhs.withUnsafeBytes { right in constantTimeEquals(left, right) } }
    }
}
