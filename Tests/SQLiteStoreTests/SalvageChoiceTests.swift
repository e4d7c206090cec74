import Data
import Domain
import Foundation
import SQLiteStore
import StoreCore
import TestSupport
import Testing

/// Which copy salvage keeps when it finds several authentic copies of one item: the newest by the
/// modification date sealed in its attributes, whatever order or place the copies were found in.
@Suite struct SalvageChoiceTests {
    /// A source that returns the candidates it is given.
    private final class GivenSource: SalvageSource {
        let headers: [HeaderRecord]
        let digests: [[UInt8]]
        let candidates: [SalvageCandidate]

        init(headers: [HeaderRecord], digests: [[UInt8]], candidates: [SalvageCandidate]) {
            self.headers = headers
            self.digests = digests
            self.candidates = candidates
        }

        func headerRecords() throws(SecureStoreError) -> [HeaderRecord] { headers }
        func rowsDigests() throws(SecureStoreError) -> [[UInt8]] { digests }
        func candidateRows() throws(SecureStoreError) -> SalvageScan { SalvageScan(candidates: candidates) }
    }

    @Test func theNewestAuthenticCopyWinsWhereverItWasFound() throws {
        let fixture = StoreFixture()
        do {
            let store = try fixture.open(now: { Date(timeIntervalSince1970: 1_000) })
            try store.add(.genericPassword(service: "s", account: "a"), data: secret("OLD"))
            try store.add(.genericPassword(service: "s", account: "b"), data: secret("OTHER"))
            try store.checkpoint()
        }
        let old = try SQLiteSalvageSource(path: fixture.path)
        do {
            let store = try fixture.open(now: { Date(timeIntervalSince1970: 2_000) })
            try store.update(.genericPassword(service: "s", account: "a"), attributes: nil, data: secret("NEW"))
            try store.checkpoint()
        }
        let new = try SQLiteSalvageSource(path: fixture.path)
        // The old copies presented as the most recent ones, and first.
        let oldRows = try old.candidateRows().candidates.map { SalvageCandidate(row: $0.row, recency: 9) }
        let newRows = try new.candidateRows().candidates.map { SalvageCandidate(row: $0.row, recency: 1) }
        let source = GivenSource(
            headers: try new.headerRecords(), digests: try new.rowsDigests(), candidates: oldRows + newRows)
        let result = try StoreSalvage.recover(from: source, keySource: .keyFile(path: fixture.keyFile))
        #expect(result.items.map { $0.data.text } == ["NEW", "OTHER"])
        #expect(result.superseded == 2, "one older copy of a, one identical copy of b")
        #expect(result.isComplete)
    }

    @Test func aCopyWithItsIndexesChangedIsNeverKept() throws {
        let fixture = StoreFixture()
        do {
            let store = try fixture.open()
            try store.add(.genericPassword(service: "s", account: "a"), data: secret("A"))
            try store.add(.genericPassword(service: "t", account: "b"), data: secret("B"))
            try store.checkpoint()
        }
        let source = try SQLiteSalvageSource(path: fixture.path)
        var rows = try source.candidateRows().candidates.sorted { $0.row.id < $1.row.id }
        #expect(rows.map(\.row.id) == [1, 2])
        // Row 1 given row 2's unique index: its ciphertexts are bound to the old one.
        rows[0].row.unique = rows[1].row.unique
        let given = GivenSource(headers: try source.headerRecords(), digests: try source.rowsDigests(), candidates: rows)
        let result = try StoreSalvage.recover(from: given, keySource: .keyFile(path: fixture.keyFile))
        #expect(result.items.map { $0.data.text } == ["B"])
        #expect(result.lost.map(\.rowID) == [1])
        #expect(result.lost.first?.reason == .attributes)
        #expect(!result.isComplete)
    }
}
