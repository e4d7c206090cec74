@_spi(HardtackTools) import Data
import Domain
import Foundation
import SQLiteStore
import StoreCore
import TestSupport
import Testing

/// Many accounts in one store: each account's session is its own, the default account is where
/// sessions stored before accounts existed are, and names are stored exactly or refused.
struct AccountSessionTests {
    let directory = TemporaryDirectory()
    let clock = TestClock()

    func openStore() throws -> SQLiteSecureItemStore {
        try SQLiteSecureItemStore.open(
            at: directory.file("keychain.db"), keySource: .keyFile(path: directory.file("keychain.key")))
    }

    func session(_ name: String) throws -> Session {
        Session(
            accessToken: try AccessToken(
                value: SecretBytes(utf8: "access-\(name)"), issuedAt: clock.date, expiresAt: clock.date + 300),
            refreshToken: try RefreshToken(value: SecretBytes(utf8: "refresh-\(name)"), expiresAt: clock.date + 86_400),
            user: User(id: name, name: name), method: .password)
    }

    static func isClaimed(_ claim: RefreshClaim) -> Bool {
        if case .claimed = claim { true } else { false }
    }

    func account(_ name: String) throws -> AccountName { try #require(AccountName(name)) }

    @Test func allSessionsReadInOneQueryAreWhatEachAccountLoads() async throws {
        let store = try openStore()
        let names = ["work", "personal", "caf\u{E9} \u{1F600}"]
        for (index, name) in names.enumerated() {
            try await SecureStoreSessionRepository(store: store, account: try account(name)).replace(with: try session("s\(index)"))
        }
        try await SecureStoreSessionRepository(store: store, account: .default).replace(with: try session("default"))
        // An account signed out again leaves nothing; one in the middle of a refresh has its claim too.
        let gone = SecureStoreSessionRepository(store: store, account: try account("gone"))
        try await gone.replace(with: try session("gone"))
        #expect(try await gone.delete())
        let work = SecureStoreSessionRepository(store: store, account: try account("work"))
        #expect(await Self.isClaimed(try work.claimRefresh(replacing: try session("s0"), owner: "me", lease: 30, now: clock.date)))

        let all = try await SecureStoreSessionRepository.sessions(in: store)
        #expect(Set(all.keys) == Set(try names.map(account) + [.default]))
        for name in all.keys {
            let alone = try await SecureStoreSessionRepository(store: store, account: name).load()
            let batch = try #require(all[name]).get()
            #expect(batch?.refreshToken.value.revealedString() == alone?.refreshToken.value.revealedString())
            #expect(batch?.accessToken.value.revealedString() == alone?.accessToken.value.revealedString())
            #expect(batch?.user == alone?.user)
        }
    }

    @Test func eachAccountsSessionIsItsOwn() async throws {
        let store = try openStore()
        let work = SecureStoreSessionRepository(store: store, account: try account("work"))
        let personal = SecureStoreSessionRepository(store: store, account: try account("personal"))
        try await work.replace(with: try session("w1"))
        try await personal.replace(with: try session("p1"))
        let claim = try await work.claimRefresh(replacing: try session("w1"), owner: "me", lease: 30, now: clock.date)
        #expect(Self.isClaimed(claim))
        // A claim on one account holds no other back.
        await #expect(
            Self.isClaimed(
                try personal.claimRefresh(
                    replacing: try session("p1"), owner: "other", lease: 30, now: clock.date)))
        #expect(try await work.completeRefresh(replacing: try session("w1"), with: try session("w2"), owner: "me"))
        #expect(try await work.load()?.accessToken.value.revealedString() == "access-w2")
        #expect(try await personal.load()?.accessToken.value.revealedString() == "access-p1")
        #expect(try await work.delete())
        #expect(try await work.load() == nil)
        #expect(try await personal.load()?.refreshToken.value.revealedString() == "refresh-p1")
        #expect(try await SecureStoreSessionRepository.accounts(in: store) == [try account("personal")])
    }

    @Test func theDefaultAccountIsTheSessionStoredBeforeAccountsExisted() async throws {
        let store = try openStore()
        // Written the way a store made before accounts keeps its session.
        try await SecureStoreSessionRepository(store: store, service: "hardtack.session").replace(with: try session("old"))
        let named = SecureStoreSessionRepository(store: store, account: .default)
        #expect(try await named.load()?.accessToken.value.revealedString() == "access-old")
        try await SecureStoreSessionRepository(store: store, account: try account("alice@example.com")).replace(
            with: try session("a"))
        #expect(try await SecureStoreSessionRepository.accounts(in: store) == [try account("alice@example.com"), .default])
    }

    @Test(arguments: ["Ålice", "A\u{030A}lice", "bob smith", "tenant/user 42", "ユーザー", String(repeating: "x", count: 256)])
    func oddNamesAreStoredExactly(name: String) async throws {
        let store = try openStore()
        let repository = SecureStoreSessionRepository(store: store, account: try account(name))
        try await repository.replace(with: try session("s"))
        #expect(try await SecureStoreSessionRepository.accounts(in: store).map(\.value) == [name])
        // Two spellings that Swift finds equal are two accounts: the store compares bytes.
        if Array(name.utf8) == Array("\u{C5}lice".utf8) {  // bytes, not Swift's canonical equality
            let other = SecureStoreSessionRepository(store: store, account: try account("A\u{030A}lice"))
            #expect(try await other.load() == nil)
        }
    }

    @Test func twoSpellingsSwiftFindsEqualAreTwoAccountsEverywhere() async throws {
        let store = try openStore()
        let composed = try account("\u{C5}lice")
        let decomposed = try account("A\u{030A}lice")
        #expect(composed != decomposed, "names compare by their bytes")
        #expect(Set([composed, decomposed]).count == 2)
        try await SecureStoreSessionRepository(store: store, account: composed).replace(with: try session("composed"))
        try await SecureStoreSessionRepository(store: store, account: decomposed).replace(with: try session("decomposed"))
        #expect(await Set(try SecureStoreSessionRepository.accounts(in: store)) == [composed, decomposed])
        let all = try await SecureStoreSessionRepository.sessions(in: store)
        #expect(all.count == 2)
        #expect(try all[composed]?.get()?.accessToken.value.revealedString() == "access-composed")
        #expect(try all[decomposed]?.get()?.accessToken.value.revealedString() == "access-decomposed")
        // Signing one out leaves the other.
        #expect(try await SecureStoreSessionRepository(store: store, account: composed).delete())
        #expect(try await SecureStoreSessionRepository.accounts(in: store) == [decomposed])
    }

    @Test(arguments: [
        "", "tab\there", "new\nline", "nul\u{0}", "del\u{7F}", String(repeating: "x", count: 257), "work\u{200B}",
        "abc\u{202E}def", "line\u{2028}sep", "para\u{2029}sep", "bom\u{FEFF}",
    ])
    func namesThatCannotBeStoredFaithfullyAreRefused(name: String) {
        #expect(AccountName(name) == nil)
        #expect(AccountName.problem(with: name) != nil)
    }

    @Test func aTenantsAccountsAreInvisibleToAnotherTenantsHandle() async throws {
        let path = directory.file("backend.db")
        let key = KeySource.keyFile(path: directory.file("backend.key"))
        // A backend maps each tenant to an access group and each user to an account.
        let tenantA = try SQLiteSecureItemStore.open(at: path, keySource: key, accessGroups: ["tenant-a"])
        let tenantB = try SQLiteSecureItemStore.open(at: path, keySource: key, accessGroups: ["tenant-b"])
        let user = try account("user-42")
        try await SecureStoreSessionRepository(store: tenantA, account: user).replace(with: try session("a"))
        #expect(try await SecureStoreSessionRepository(store: tenantB, account: user).load() == nil)
        #expect(try await SecureStoreSessionRepository.accounts(in: tenantB).isEmpty)
        try await SecureStoreSessionRepository(store: tenantB, account: user).replace(with: try session("b"))
        await #expect(
            try SecureStoreSessionRepository(store: tenantA, account: user).load()?.accessToken.value.revealedString()
                == "access-a")
        #expect(try await SecureStoreSessionRepository.accounts(in: tenantA) == [user])
    }

    @Test func aHandleOfSeveralGroupsWorksOnTheSessionsOfItsFirstOnly() async throws {
        let path = directory.file("backend.db")
        let key = KeySource.keyFile(path: directory.file("backend.key"))
        let tenantA = try SQLiteSecureItemStore.open(at: path, keySource: key, accessGroups: ["tenant-a"])
        let tenantB = try SQLiteSecureItemStore.open(at: path, keySource: key, accessGroups: ["tenant-b"])
        let both = try SQLiteSecureItemStore.open(at: path, keySource: key, accessGroups: ["tenant-a", "tenant-b"])
        let user = try account("shared")
        try await SecureStoreSessionRepository(store: tenantA, account: user).replace(with: try session("a"))
        try await SecureStoreSessionRepository(store: tenantB, account: user).replace(with: try session("b"))
        // Not one account made of two tenants' items: the first group's session, whole.
        let seen = SecureStoreSessionRepository(store: both, account: user)
        #expect(try await seen.load()?.accessToken.value.revealedString() == "access-a")
        #expect(try await SecureStoreSessionRepository.sessions(in: both)[user]?.get()?.refreshToken.value.revealedString() == "refresh-a")
        #expect(try await seen.delete())
        #expect(try await SecureStoreSessionRepository(store: tenantA, account: user).load() == nil)
        await #expect(
            try SecureStoreSessionRepository(store: tenantB, account: user).load()?.accessToken.value.revealedString()
                == "access-b", "the other tenant's session is untouched")
        #expect(try await SecureStoreSessionRepository.accounts(in: both).isEmpty)
    }
}

/// Provisioning many accounts at once: one transaction, all or nothing.
@Suite struct AddSessionsTests {
    let directory = TemporaryDirectory()
    let clock = TestClock()

    func session(_ tag: String) throws -> Session {
        Session(
            accessToken: try AccessToken(value: SecretBytes(utf8: "at-\(tag)"), issuedAt: clock.date, expiresAt: clock.date + 300),
            refreshToken: try RefreshToken(value: SecretBytes(utf8: "rt-\(tag)"), expiresAt: nil),
            user: User(id: tag, name: tag), method: .password)
    }

    @Test func sessionsAreAddedTogetherOrNotAtAll() async throws {
        let store = try SQLiteSecureItemStore.open(
            at: directory.file("keychain.db"), keySource: .keyFile(path: directory.file("keychain.key")))
        let names = try (0..<5).map { try #require(AccountName("user-\($0)")) }
        try await SecureStoreSessionRepository.addSessions(try names.map { ($0, try session($0.value)) }, to: store)
        for name in names {
            let loaded = try #require(try await SecureStoreSessionRepository(store: store, account: name).load())
            #expect(loaded.refreshToken.value == SecretBytes(utf8: "rt-\(name.value)"))
        }
        #expect(try await SecureStoreSessionRepository.accounts(in: store) == names)
        // One account that has a session already: nothing of the batch is stored.
        let fresh = try #require(AccountName("user-new"))
        await #expect(throws: AuthenticationError.self) {
            try await SecureStoreSessionRepository.addSessions([(fresh, try session("new")), (names[2], try session("again"))], to: store)
        }
        #expect(try await SecureStoreSessionRepository(store: store, account: fresh).load() == nil)
        #expect(try await SecureStoreSessionRepository(store: store, account: names[2]).load()?.user?.name == "user-2")
    }
}
