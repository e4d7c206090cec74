import Data
import Domain
import Foundation
import SQLiteStore
import StoreCore
import TestSupport
import Testing

/// A store file cut to nothing, or cut short, is damage: never "not found", never a new empty store
/// made over it.
struct EmptiedStoreTests {
    @Test func anOldEmptyStoreFileIsDamageAndStaysAsItIs() throws {
        let fixture = StoreFixture()
        try FileBytes.writePrivate([], to: fixture.path)
        let old = Date().addingTimeInterval(-60)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: fixture.path)
        #expect {
            _ = try fixture.open()
        } throws: { error in
            (error as? SecureStoreError)?.isIntegrityFailure == true
        }
        #expect(FileBytes.read(fixture.path).isEmpty, "nothing may be written over it")
        #expect(!FileManager.default.fileExists(atPath: fixture.keyFile), "no key made for a store not made")
    }

    @Test func anEmptyFileJustMadeIsDamageToo() throws {
        // A store file truncated a moment ago has a fresh modification time: it is damage all the same,
        // and nothing is made over it (stores are linked into place whole, never made in an empty file).
        let fixture = StoreFixture()
        try FileBytes.writePrivate([], to: fixture.path)
        let opened = #expect(throws: SecureStoreError.self) { _ = try fixture.open() }
        #expect(opened?.isIntegrityFailure == true, "\(String(describing: opened))")
        #expect(FileBytes.read(fixture.path).isEmpty, "nothing may be written over it")
        #expect(!FileManager.default.fileExists(atPath: fixture.keyFile), "no key made for a store not made")
    }

    @Test func aStoreTruncatedToNothingIsNeverReplaced() throws {
        let fixture = StoreFixture()
        do {
            let store = try fixture.open()
            try store.add(.genericPassword(service: "s", account: "a"), data: secret("x"))
        }
        let key = FileBytes.read(fixture.keyFile)
        try #require(truncate(fixture.path, 0) == 0)
        for _ in 0..<2 {
            let opened = #expect(throws: SecureStoreError.self) { _ = try fixture.open() }
            #expect(opened?.isIntegrityFailure == true)
        }
        #expect(FileBytes.read(fixture.path).isEmpty)
        #expect(FileBytes.read(fixture.keyFile) == key, "the key file is left as it was")
    }

    @Test func aNewStoreLeavesNothingBesideIt() throws {
        // The store is built in a temporary file in the same directory and linked into place: after the
        // first open, only the store (and its log files) and the key are there.
        let fixture = StoreFixture()
        let store = try fixture.open()
        try store.add(.genericPassword(service: "s", account: "a"), data: secret("x"))
        #expect(try store.find(.genericPassword(service: "s"), limit: .one, returning: .data).first?.data?.text == "x")
        let directory = (fixture.path as NSString).deletingLastPathComponent
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(!names.contains { $0.contains(".creating-") }, "\(names)")
    }

    @Test func aStoreCutShortIsDamageNotAbsence() throws {
        let fixture = StoreFixture()
        do {
            let store = try fixture.open()
            for index in 0..<40 {
                try store.add(.genericPassword(service: "s", account: "\(index)"), data: secret(String(repeating: "x", count: 300)))
            }
            try store.checkpoint()
        }
        let bytes = FileBytes.read(fixture.path)
        try #require(bytes.count > 3 * 4096)
        try FileBytes.writePrivate(Array(bytes[0..<(2 * 4096)]), to: fixture.path)
        do {
            let store = try fixture.open()
            #expect {
                _ = try store.find(.genericPassword(service: "s", account: "39"), limit: .one, returning: .data)
            } throws: { error in
                (error as? SecureStoreError)?.isIntegrityFailure == true
            }
        } catch {
            #expect(error.isIntegrityFailure, "opening a cut store: \(error)")
        }
    }
}
