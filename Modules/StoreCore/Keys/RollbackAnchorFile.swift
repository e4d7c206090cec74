package import Data
import Foundation

/// A file outside the store that holds the newest write generation the store committed (its sealed
/// digest carries one from format 4: ``RowsDigest/opened(_:role:keys:)``). A store whose digest
/// carries an older generation than the anchor is an older copy of the store put back whole, which the
/// digest alone cannot tell from the store as it was.
///
/// The file: `HTKA`, a version byte (1), the store id (16 bytes), the generation (8, big-endian) and an
/// unkeyed BLAKE2b-256 checksum of those (which catches a torn or damaged file, not a forger: whoever
/// can write the anchor can put an older one back, and the anchor is worth what its place is). Mode
/// 0600, never through a link. It is replaced whole (a new file renamed over it), under an exclusive
/// `flock` of `<path>.lock`, and only ever raised: two writers that advance it in either order leave the
/// higher generation.
package struct RollbackAnchorFile: Sendable {
    /// Where the anchor is.
    package let path: String
    /// The store it anchors.
    package let storeID: [UInt8]

    /// What is said of an anchor that is not there, after its path.
    package static let missing = "is missing (it was removed, or never made for this store)"
    /// What is said of a store older than its anchor, last.
    package static let olderCopy = "an older copy of the store was put back"

    private static let magic: [UInt8] = Array("HTKA".utf8)
    private static let version: UInt8 = 1
    private static let bodyBytes = 4 + 1 + 16 + 8
    private static let fileBytes = bodyBytes + 32

    /// An anchor at `path` for the store `storeID`.
    package init(path: String, storeID: [UInt8]) {
        self.path = path
        self.storeID = storeID
    }

    /// The generation the anchor holds; `nil` when there is no file at `path`.
    /// - Throws: ``SecureStoreError/integrityFailure(_:)`` when the file is damaged or anchors another
    ///   store; ``SecureStoreError/insecurePermissions(path:fix:)`` when others may read or write it.
    package func read() throws(SecureStoreError) -> UInt64? {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw failure("inspect", errno)
        }
        let bytes = try FileSecurity.readPrivateFile(path, maxBytes: Self.fileBytes)
        guard bytes.count == Self.fileBytes, bytes.starts(with: Self.magic), bytes[4] == Self.version,
            Sodium.checksum(Array(bytes[..<Self.bodyBytes])) == Array(bytes[Self.bodyBytes...])
        else {
            throw .integrityFailure("the rollback anchor \(path) is damaged (it is not an anchor this store wrote)")
        }
        guard Array(bytes[5..<21]) == storeID else {
            throw .integrityFailure("the rollback anchor \(path) belongs to another store")
        }
        return readBigEndian(bytes[21..<29])
    }

    /// Raises the anchor to `generation` (creating it), unless it holds that or a higher one already.
    /// The anchor's directory is made 0700 (or checked) first, as a store's is.
    package func advance(to generation: UInt64) throws(SecureStoreError) {
        try FileSecurity.prepareDirectory(FileSecurity.parentDirectory(of: path))
        let lock = open(path + ".lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw failure("lock", errno) }
        defer { close(lock) }
        guard flock(lock, LOCK_EX) == 0 else { throw failure("lock", errno) }
        defer { flock(lock, LOCK_UN) }
        if let held = try read(), held >= generation { return }
        let body = Self.magic + [Self.version] + storeID + bigEndian(generation)
        let temporary = path + ".new"
        unlink(temporary)
        try FileSecurity.createPrivateFile(temporary, contents: body + Sodium.checksum(body))
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw failure("replace", code)
        }
        FileSecurity.syncDirectory(FileSecurity.parentDirectory(of: path))
    }

    private func failure(_ doing: String, _ code: Int32) -> SecureStoreError {
        .storage(.store("cannot \(doing) the rollback anchor \(path): \(String(cString: strerror(code)))"))
    }

    /// Whether an integrity failure's reason is about a rollback anchor (missing, damaged, another
    /// store's, or newer than the store), not about the store's own rows.
    package static func isAnchorFailure(_ reason: String) -> Bool { reason.contains("rollback anchor") }
}
