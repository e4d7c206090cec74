/// How a store file is cut short: damage no page checksum can show, since the pages are not there to
/// check.
public enum FileShortfall: Sendable, Hashable {
    /// The file is empty: its header and every page are missing.
    case empty
    /// The file holds fewer bytes than the database header: its header and pages are missing.
    case noHeader(bytes: UInt64)
    /// Only `present` of the `expected` pages its header counts are there; the rest are missing.
    case missingPages(present: UInt64, expected: UInt64)
}
