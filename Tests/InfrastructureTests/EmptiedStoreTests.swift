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

    @Test func aJustCreatedEmptyFileIsAStoreInTheMaking() throws {
        // Another process creates the file and writes its first page within milliseconds: an empty
        // file that new is not damage, and opening it makes the store.
        let fixture = StoreFixture()
        try FileBytes.writePrivate([], to: fixture.path)
        let store = try fixture.open()
        try store.add(.genericPassword(service: "s", account: "a"), data: secret("x"))
        #expect(try store.find(.genericPassword(service: "s"), limit: .one, returning: .data).first?.data?.text == "x")
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
