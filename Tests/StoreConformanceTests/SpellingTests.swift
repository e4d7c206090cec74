import Data
import Domain
import TestSupport
import Testing

/// Text is compared byte for byte: two spellings that Swift's `String` finds equal (a precomposed Å,
/// and A with a combining ring) are two values, through every kind of query.
struct SpellingTests {
    static let precomposed = "\u{C5}lice"
    static let decomposed = "A\u{030A}lice"

    @Test(arguments: StoreAdapter.all)
    func equalLookingSpellingsAreDifferentValues(adapter: StoreAdapter) throws {
        #expect(Self.precomposed == Self.decomposed, "Swift itself finds them equal")
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open()
        try store.add(.genericPassword(service: "svc", account: Self.precomposed), data: secret("one"))
        // By unique key, by the primary attribute with a checked account, and by a scan of the class.
        for query in [
            ItemAttributes.genericPassword(service: "svc", account: Self.decomposed),
            .genericPassword(service: "svc", account: Self.decomposed, label: nil),
            .genericPassword(account: Self.decomposed),
        ] {
            #expect(throws: SecureStoreError.itemNotFound) { try store.find(query, limit: .all, returning: .data) }
        }
        // The other spelling is another item, not a duplicate.
        try store.add(.genericPassword(service: "svc", account: Self.decomposed), data: secret("two"))
        #expect(try store.item(.genericPassword(account: Self.precomposed)).data?.text == "one")
        #expect(try store.item(.genericPassword(account: Self.decomposed)).data?.text == "two")
        #expect(try store.find(.genericPassword(service: "svc"), limit: .all, returning: .data).count == 2)
    }
}
