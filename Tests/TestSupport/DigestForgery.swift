/// What someone who can edit a store's tables, and saw its stored rows digest before and after one of
/// its writes, computes to hide a later edit of the row that write touched: the tests' stand-in for
/// that attacker.
///
/// A plain digest (24 bytes: the row count, big-endian, then the XOR of the rows' keyed hashes) gives
/// the XOR of the hashes the write took out and put in, which the attacker applies to the current
/// digest. A sealed digest has no such structure; the same XOR of its bytes is the attacker's best
/// guess, and it never authenticates.
public enum DigestForgery {
    /// The current digest with the row that the write from `before` to `after` added taken out.
    public static func removing(learnedFrom before: [UInt8], _ after: [UInt8], from current: [UInt8]) -> [UInt8] {
        forge(before, after, current, countChange: -1)
    }

    /// The current digest with the write from `before` to `after` (an update of one row) undone.
    public static func undoing(learnedFrom before: [UInt8], _ after: [UInt8], from current: [UInt8]) -> [UInt8] {
        forge(before, after, current, countChange: 0)
    }

    private static func forge(_ before: [UInt8], _ after: [UInt8], _ current: [UInt8], countChange: Int64) -> [UInt8] {
        var forged = current
        for index in forged.indices where index < before.count && index < after.count {
            forged[index] ^= before[index] ^ after[index]
        }
        guard current.count == 24, before.count == 24, after.count == 24 else { return forged }
        let count = current[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let changed = UInt64(bitPattern: Int64(bitPattern: count) + countChange)
        for index in 0..<8 { forged[index] = UInt8(truncatingIfNeeded: changed >> (56 - 8 * index)) }
        return forged
    }
}
