import Foundation

/// Whether a store file is whole in length: an empty file, or one shorter than the pages its SQLite
/// header counts, is damage that no page checksum can show (the pages are not there to check).
enum StoreFileShape {
    /// How the SQLite file at `path` is cut short; `nil` when its length is what its header says (or it
    /// cannot be read, or its header does not say).
    static func cutShort(_ path: String) -> FileShortfall? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd() else { return nil }
        if size == 0 { return .empty }
        try? handle.seek(toOffset: 0)
        guard let header = try? handle.read(upToCount: 100), header.count == 100 else {
            return .noHeader(bytes: size)
        }
        let bytes = [UInt8](header)
        let field = { (at: Int) in bytes[at..<(at + 4)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        let rawPageSize = UInt64(bytes[16]) << 8 | UInt64(bytes[17])
        let pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
        // The page count in the header is valid when the change counter matches its "valid for" field.
        guard pageSize >= 512, field(24) == field(92), field(28) > 0 else { return nil }
        let pages = field(28)
        let present = size / pageSize
        guard present < pages else { return nil }
        return .missingPages(present: present, expected: pages)
    }
}
