import Data
import Domain
import Foundation
import SQLiteStore
import StoreCore
import TestSupport
import Testing

/// The store's files are private: created 0700 and 0600 whatever the umask (which these tests never
/// change: other tests run in this process at the same time), and refused when others can reach them,
/// when they are symbolic links, or when they are not what they should be.
@Suite struct FilePermissionTests {
    let fixture = StoreFixture()

    private func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int) & 0o777
    }

    private func open(_ path: String, keyFile: String? = nil) throws(SecureStoreError) -> SQLiteSecureItemStore {
        try SQLiteSecureItemStore.open(
            at: path, keySource: .keyFile(path: keyFile ?? fixture.keyFile),
            options: StoreOptions(passphraseCost: .interactive))
    }

    private func expectInsecure(
        _ path: String, keyFile: String? = nil, mentioning fix: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let error = #expect(throws: SecureStoreError.self, sourceLocation: sourceLocation) {
            try open(path, keyFile: keyFile)
        }
        #expect(error?.isInsecurePermissions == true, "\(String(describing: error))", sourceLocation: sourceLocation)
        if let fix {
            #expect(
                error?.description.contains(fix) == true, "\(String(describing: error))",
                sourceLocation: sourceLocation)
        }
    }

    @Test func openCreatesAPrivateDirectoryAndPrivateFiles() throws {
        let directory = fixture.directory.file("new/store")
        let path = directory + "/keychain.db"
        let keyFile = directory + "/keychain.key"
        let store = try open(path, keyFile: keyFile)
        try store.add(.genericPassword(service: "s"), data: secret("x"))
        #expect(try mode(directory) == 0o700)
        #expect(try mode(path) == 0o600)
        #expect(try mode(keyFile) == 0o600)
        #expect(try mode(path + "-wal") == 0o600)
        #expect(try mode(path + "-shm") == 0o600)
        #expect(FileBytes.read(keyFile).count == 32)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".tmp") }
        #expect(leftovers.isEmpty)
    }

    @Test func aDatabaseOthersCanReadIsRefusedWithTheFix() throws {
        _ = try fixture.open()
        #expect(chmod(fixture.path, 0o644) == 0)
        expectInsecure(fixture.path, mentioning: "chmod 600")
        #expect(chmod(fixture.path, 0o600) == 0)
        _ = try fixture.open()
    }

    @Test func aGroupWritableDatabaseIsRefused() throws {
        _ = try fixture.open()
        #expect(chmod(fixture.path, 0o620) == 0)
        expectInsecure(fixture.path, mentioning: "chmod 600")
    }

    @Test func aWriteAheadLogOthersCanReadIsRefused() throws {
        _ = try fixture.open()
        try FileBytes.writePrivate([], to: fixture.walPath)
        #expect(chmod(fixture.walPath, 0o644) == 0)
        expectInsecure(fixture.path, mentioning: "chmod 600")
    }

    @Test func aSymbolicLinkAtTheStorePathIsRefused() throws {
        let real = fixture.directory.file("real.db")
        do {
            let store = try open(real)
            try store.add(.genericPassword(service: "s"), data: secret("x"))
        }
        try FileManager.default.createSymbolicLink(atPath: fixture.path, withDestinationPath: real)
        expectInsecure(fixture.path, mentioning: "symbolic link")
        // A dangling link is refused too, and nothing is created through it.
        let dangling = fixture.directory.file("dangling.db")
        let target = fixture.directory.file("target.db")
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: target)
        expectInsecure(dangling, mentioning: "symbolic link")
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test func aSymbolicLinkedDirectoryIsFollowedToAPrivateRealDirectory() throws {
        // A symlinked home or data directory is common: the store lives in the real directory, which
        // must itself be private.
        let real = fixture.directory.file("real")
        #expect(mkdir(real, 0o700) == 0)
        let link = fixture.directory.file("link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        let store = try SQLiteSecureItemStore.open(
            at: link + "/keychain.db", keySource: .keyFile(path: real + "/keychain.key"),
            options: StoreOptions(passphraseCost: .interactive))
        try store.add(.genericPassword(service: "s", account: "a"), data: SecretBytes(utf8: "x"))
        #expect(FileManager.default.fileExists(atPath: real + "/keychain.db"))

        let shared = fixture.directory.file("shared-real")
        #expect(mkdir(shared, 0o700) == 0)
        #expect(chmod(shared, 0o755) == 0)
        let sharedLink = fixture.directory.file("shared-link")
        try FileManager.default.createSymbolicLink(atPath: sharedLink, withDestinationPath: shared)
        expectInsecure(sharedLink + "/keychain.db", keyFile: real + "/other.key", mentioning: "chmod 700")
    }

    @Test func aDirectoryOthersCanEnterIsRefused() throws {
        let directory = fixture.directory.file("shared")
        #expect(mkdir(directory, 0o700) == 0)
        #expect(chmod(directory, 0o755) == 0)
        expectInsecure(directory + "/keychain.db", keyFile: directory + "/keychain.key", mentioning: "chmod 700")
        #expect(!FileManager.default.fileExists(atPath: directory + "/keychain.db"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/keychain.key"))
    }

    @Test func somethingThatIsNotARegularFileIsRefused() throws {
        #expect(mkdir(fixture.path, 0o700) == 0)
        expectInsecure(fixture.path, mentioning: "regular file")
    }
}
