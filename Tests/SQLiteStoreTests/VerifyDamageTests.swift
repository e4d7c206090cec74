import Data
import Domain
import TestSupport
import Testing

/// `verify()` over a SQLite file with a damaged row: one damaged cell makes one damaged item, and
/// verify says nothing about any item. (What verify reports for sound stores is proven for every
/// adapter in StoreConformanceTests' VerifyTests.)
@Suite struct VerifyDamageTests {
    let fixture = StoreFixture()
    private let secrets = ["VERIFY-SECRET-0a1b", "VERIFY-SECRET-2c3d", "VERIFY-SECRET-4e5f"]

    private func createStore() throws { try createStore(fixture) }

    private func createStore(_ fixture: StoreFixture) throws {
        let a = try fixture.open(groups: ["a"])
        let b = try fixture.open(groups: ["b"])
        try a.add(.genericPassword(service: "VERIFY-SERVICE", account: "0"), data: secret(secrets[0]))
        try b.add(.internetPassword(server: "VERIFY-SERVER", account: "1"), data: secret(secrets[1]))
        try a.add(.key(applicationTag: Array("VERIFY-TAG".utf8)), data: secret(secrets[2]))
        try a.checkpoint()
    }

    /// `attrs` is a cell of format-1 rows only (a joint row's is empty): that case runs on a format-1 store.
    @Test(arguments: ["data", "attrs", "uniq", "prim", "grp"])
    func oneDamagedCellMakesOneDamagedItemAndVerifyPrintsNothing(column: String) throws {
        var fixture = self.fixture
        if column == "attrs" { fixture.format = 1 }
        try createStore(fixture)
        do {
            let raw = try fixture.raw()
            var cell = try raw.blob("SELECT \(column) FROM items WHERE id = 2")
            cell[cell.count / 2] ^= 0x40
            try raw.setItemColumn(column, of: 2, to: .blob(cell))
        }
        let store = try fixture.open(groups: ["a"])
        let (report, output) = try capturingOutput(in: fixture.directory) { try store.verify() }
        #expect(report.soundItems == 2)
        #expect(report.damagedItems == 1)
        // Index cells are also covered by the rows digest, which says so; so are ciphertexts from format 4
        // (a format-1 store's only by their item).
        if fixture.format >= 4 || ["uniq", "prim", "grp"].contains(column) {
            #expect(report.databaseCheck.contains("digest"))
        } else {
            #expect(report.databaseCheck == "ok")
        }
        #expect(!report.isSound)
        for word in secrets + ["VERIFY-SERVICE", "VERIFY-SERVER", "VERIFY-TAG"] {
            #expect(!FileBytes.contains(output, Array(word.utf8)), "verify printed \(word)")
        }
        // The sound items still read where the rows digest counts no ciphertext (format 1). From format 4
        // a find also needs the rows to match their digest (a row it reads may be an older copy put
        // back, `RowRollbackTests`), which cannot say which row was changed: every find is damage.
        for query in [ItemAttributes.genericPassword(service: "VERIFY-SERVICE"), .key(applicationTag: Array("VERIFY-TAG".utf8))] {
            if fixture.format >= 4 {
                #expect(throwsIntegrityFailure { _ = try store.findString(query) })
            } else {
                #expect(try secrets.contains(store.findString(query)))
            }
        }
    }

    @Test func aRowWithAnUnknownClassIsCountedDamaged() throws {
        try createStore()
        try fixture.raw().setItemColumn("class", of: 3, to: .integer(42))
        let report = try fixture.open(groups: ["a"]).verify()
        #expect(report.soundItems == 2)
        #expect(report.damagedItems == 1)
    }
}
