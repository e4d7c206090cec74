import Data
import Domain
import Foundation
import RawSQLite
import SQLiteStore
import StoreCore
import TestSupport
import Testing

/// The limit the rows digest leaves (the whole store put back as it was at an earlier commit: every row
/// and the digest together) is caught when the store keeps a rollback anchor outside its file: the
/// anchor holds the newest write generation committed, and an older copy of the store carries an older
/// one. The attack is shown to succeed on the same file without the anchor.
@Suite struct RollbackAnchorTests {
    private let mail = ItemAttributes.genericPassword(service: "mail", account: "alice")

    /// A format-4 store fixture that keeps its anchor beside its file.
    private func anchored() -> StoreFixture {
        var fixture = StoreFixture()
        fixture.anchor = RollbackAnchorSetting(path: fixture.anchorPath)
        return fixture
    }

    /// The generation the anchor file holds (its bytes 21 to 28, big-endian).
    private func anchorGeneration(_ fixture: StoreFixture) -> UInt64 {
        FileBytes.read(fixture.anchorPath)[21..<29].reduce(0) { $0 << 8 | UInt64($1) }
    }

    private func isOlderThanAnchor(_ error: SecureStoreError) -> Bool {
        if case .integrityFailure(let reason) = error { reason.contains("older than its rollback anchor") } else { false }
    }

    @Test func theWholeStorePutBackIsDamage() throws {
        let fixture = anchored()
        let copy = fixture.directory.file("copy.db")
        do {
            let store = try fixture.open()
            try store.add(mail, data: secret("OLD-REFRESH"))
        }
        try FileManager.default.copyItem(atPath: fixture.path, toPath: copy)
        do {
            let store = try fixture.open()
            try store.update(mail, attributes: nil, data: secret("NEW-REFRESH"))
        }
        try FileManager.default.removeItem(atPath: fixture.path)
        try FileManager.default.copyItem(atPath: copy, toPath: fixture.path)

        let reopened = try fixture.open()
        let error = #expect(throws: SecureStoreError.self) { try reopened.findString(mail) }
        #expect(error.map(isOlderThanAnchor) == true, "\(String(describing: error))")
        #expect(throws: SecureStoreError.self) { try reopened.update(mail, attributes: nil, data: secret("X")) }
        // verify says what it is (not rows that do not match their digest, which salvage would count).
        let verify = #expect(throws: SecureStoreError.self) { try reopened.verify() }
        #expect(verify.map(isOlderThanAnchor) == true, "\(String(describing: verify))")
        // Without the anchor, the same file opens as the store it was (the limit the anchor removes).
        var unanchored = fixture
        unanchored.anchor = nil
        #expect(try unanchored.open().findString(mail) == "OLD-REFRESH")
    }

    @Test func eachCommitRaisesTheAnchorAndNoWriterTripsIt() throws {
        let fixture = anchored()
        let first = try fixture.open()
        let second = try fixture.open()
        #expect(anchorGeneration(fixture) == 0)
        for round in 0..<20 {
            let (writer, reader) = round.isMultiple(of: 2) ? (first, second) : (second, first)
            _ = try writer.addOrUpdate(mail, data: secret("V\(round)"))
            #expect(try reader.findString(mail) == "V\(round)")
            #expect(try reader.find(.genericPassword(), limit: .all, returning: .attributes).count == 1)
        }
        #expect(anchorGeneration(fixture) == 20)
        #expect(try first.verify().isSound)
    }

    @Test func aMissingAnchorIsRefusedUnlessAnOpenMayMakeIt() throws {
        var fixture = anchored()
        do {
            let store = try fixture.open()
            try store.add(mail, data: secret("A"))
            try store.update(mail, attributes: nil, data: secret("B"))
        }
        #expect(anchorGeneration(fixture) == 2)
        try FileManager.default.removeItem(atPath: fixture.anchorPath)
        let refused = #expect(throws: SecureStoreError.self) { try fixture.open() }
        #expect(refused?.isIntegrityFailure == true && "\(String(describing: refused))".contains("is missing"))
        fixture.anchor?.createIfMissing = true
        #expect(try fixture.open().findString(mail) == "B")
        #expect(anchorGeneration(fixture) == 2, "made anew from the store as it is")
    }

    @Test func anAnchorDamagedOrOfAnotherStoreIsRefused() throws {
        let fixture = anchored()
        _ = try fixture.open()
        var bytes = FileBytes.read(fixture.anchorPath)
        bytes[25] ^= 0x01
        try FileBytes.writePrivate(bytes, to: fixture.anchorPath)
        let damaged = #expect(throws: SecureStoreError.self) { try fixture.open() }
        #expect("\(String(describing: damaged))".contains("is damaged"))

        var other = StoreFixture()
        other.anchor = RollbackAnchorSetting(path: fixture.anchorPath)
        try FileManager.default.removeItem(atPath: fixture.anchorPath)
        _ = try fixture.open(createIfMissing: true)
        let foreign = #expect(throws: SecureStoreError.self) { try other.open() }
        #expect("\(String(describing: foreign))".contains("belongs to another store"))
    }

    @Test func theAnchorIsPrivateAndNeverALink() throws {
        let fixture = anchored()
        _ = try fixture.open()
        var info = stat()
        #expect(lstat(fixture.anchorPath, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let real = fixture.directory.file("real.anchor")
        try FileManager.default.moveItem(atPath: fixture.anchorPath, toPath: real)
        try FileManager.default.createSymbolicLink(atPath: fixture.anchorPath, withDestinationPath: real)
        #expect(throws: SecureStoreError.self) { try fixture.open() }
    }

    @Test func onlyAFormat4SQLiteStoreKeepsAnAnchor() throws {
        var fixture = anchored()
        fixture.format = 3
        let refused = #expect(throws: SecureStoreError.self) { try fixture.open() }
        #expect("\(String(describing: refused))".contains("format 4"))
    }
}

extension StoreFixture {
    /// ``open(groups:durability:now:)`` with the anchor made if missing.
    fileprivate func open(createIfMissing: Bool) throws(SecureStoreError) -> SQLiteSecureItemStore {
        var fixture = self
        fixture.anchor?.createIfMissing = createIfMissing
        return try fixture.open()
    }
}

extension RollbackAnchorTests {
    /// A writer killed between its commit and its raise leaves the anchor behind the store: the next
    /// handle to read the store raises it, and from then the commit cannot be taken back.
    @Test func aLaggingAnchorIsRaisedByTheNextRead() throws {
        let fixture = anchored()
        let copy = fixture.directory.file("copy.db")
        let anchorCopy = fixture.directory.file("copy.anchor")
        do {
            let store = try fixture.open()
            try store.add(mail, data: secret("OLD"))
        }
        try FileManager.default.copyItem(atPath: fixture.path, toPath: copy)
        try FileManager.default.copyItem(atPath: fixture.anchorPath, toPath: anchorCopy)
        do {
            let store = try fixture.open()
            try store.update(mail, attributes: nil, data: secret("NEW"))
        }
        // The anchor as it was before that commit's raise.
        try FileManager.default.removeItem(atPath: fixture.anchorPath)
        try FileManager.default.copyItem(atPath: anchorCopy, toPath: fixture.anchorPath)
        #expect(anchorGeneration(fixture) == 1)
        #expect(try fixture.open().findString(mail) == "NEW")
        #expect(anchorGeneration(fixture) == 2)
        try FileManager.default.removeItem(atPath: fixture.path)
        try FileManager.default.copyItem(atPath: copy, toPath: fixture.path)
        #expect(throws: SecureStoreError.self) { try fixture.open().findString(mail) }
    }
}

extension RollbackAnchorTests {
    /// A rotation seals the digest under the new key with the next generation: the anchor follows it,
    /// and later writes and other handles go on without a false alarm.
    @Test func aRotationRaisesTheAnchorLikeAnyCommit() throws {
        let fixture = anchored()
        let store = try fixture.open()
        try store.add(mail, data: secret("A"))
        #expect(try store.rotateKey(to: .keyFile(path: fixture.keyFile)) == 1)
        #expect(anchorGeneration(fixture) == 2)
        try store.update(mail, attributes: nil, data: secret("B"))
        #expect(anchorGeneration(fixture) == 3)
        #expect(try fixture.open().findString(mail) == "B")
        #expect(try fixture.open().verify().isSound)
    }

    /// Under synchronous NORMAL a power cut can take back a commit whose anchor was raised: refused.
    @Test func anAnchorNeedsDurableCommits() throws {
        let fixture = anchored()
        _ = try fixture.open()
        let refused = #expect(throws: SecureStoreError.self) { try fixture.open(durability: .normal) }
        #expect("\(String(describing: refused))".contains("synchronous FULL"))
    }

    /// The anchor is made with the store, before the store is in place, in a 0700 directory of its own
    /// when that does not exist yet.
    @Test func aNewStoreMakesItsAnchorAndItsDirectory() throws {
        var fixture = StoreFixture()
        let path = fixture.directory.file("anchors/keychain.anchor")
        fixture.anchor = RollbackAnchorSetting(path: path)
        try fixture.open().add(mail, data: secret("A"))
        var info = stat()
        #expect(lstat(fixture.directory.file("anchors"), &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(FileBytes.read(path)[21..<29].reduce(0) { $0 << 8 | UInt64($1) } == 1)
    }
}
