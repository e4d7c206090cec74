import Data
import Foundation
@testable import SQLiteStore
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A storage failure says what happened by kind and in words, whatever the backend: a full disk, a
/// read-only file or a held lock never reads as a bare result code.
struct StorageFailureTests {
    @Test(arguments: [
        (Int32(5), Int32(0), StorageFailure.Kind.busy),  // SQLITE_BUSY
        (517, 0, .busy),  // SQLITE_BUSY_SNAPSHOT
        (6, 0, .busy),  // SQLITE_LOCKED
        (13, 0, .full),  // SQLITE_FULL
        (8, 0, .readOnly),  // SQLITE_READONLY
        (1544, 0, .readOnly),  // SQLITE_READONLY_DIRECTORY
        (3, 0, .permission),  // SQLITE_PERM
        (7, 0, .resources),  // SQLITE_NOMEM
        (10, ENOSPC, .full),  // SQLITE_IOERR with the disk full
        (778, EROFS, .readOnly),  // SQLITE_IOERR_WRITE on a read-only mount
        (14, EACCES, .permission),  // SQLITE_CANTOPEN, permission denied
        (10, EIO, .other),  // an I/O error of another kind
        (1, 0, .other),  // SQLITE_ERROR
    ])
    func sqliteResultCodesMapToKinds(code: Int32, systemErrno: Int32, kind: StorageFailure.Kind) {
        #expect(SQLiteFailure.kind(code: code, systemErrno: systemErrno) == kind)
    }

    @Test func aFullDiskIsSaidInWordsWithTheCodeOnlyInTheDetail() {
        let failure = SQLiteFailure.failure(
            code: 13, systemErrno: ENOSPC, message: "database or disk is full", statement: "COMMIT")
        let error = SecureStoreError.storage(failure)
        #expect(failure.kind == .full)
        #expect(error.description.contains("the disk is full"))
        #expect(error.description.contains("Free some disk space"))
        #expect(!error.description.contains("13"))
        #expect(!error.description.contains("COMMIT"))
        #expect(failure.detail?.contains("SQLite result 13") == true)
        #expect(failure.detail?.contains("`COMMIT`") == true)
        #expect(error.isUnavailable)
    }

    @Test func aStoreWhoseFileCannotBeOpenedSaysWhy() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hardtack-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A directory where the database file should be: SQLite cannot open it as a file.
        let path = directory + "/store.db"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        #expect {
            _ = try SQLiteConnection(path: path)
        } throws: { error in
            guard case .storage(let failure) = error as? SecureStoreError else { return false }
            return failure.backend == "SQLite" && failure.message.hasPrefix("cannot open the store's file")
                && failure.detail?.contains("SQLite result 14") == true
        }
    }
}
