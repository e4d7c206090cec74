import CommandLineKit
import Composition
import Data

/// `verify`: decrypt and check every item and run SQLite's structural check.
struct VerifyVerb: HardtackCommand {
    static let configuration = KeychainVerbs.configuration(
        name: "verify", abstract: "Check every item and the database file; exit 65 if anything is damaged.",
        options: [],
        discussion: ["Prints counts only: sound items, damaged items, and SQLite's check (\"ok\" when sound)."])
    static let sections = KeychainVerbs.sections([])

    /// The store.
    let store: StoreOptions

    init(from values: ParsedValues) throws(UsageError) {
        store = try StoreOptions(from: values)
    }

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        let handle = try store.openExisting(context, onlyReads: true)
        let health: StoreHealth
        do throws(SecureStoreError) {
            health = try handle.verify()
        } catch {
            throw .store(error)
        }
        Console.print(
            """
            store: \(handle.storePath)
            sound items: \(health.soundItems)
            damaged items: \(health.damagedItems)
            database check: \(health.databaseCheck)
            """)
        guard health.isSound else {
            throw .finding(
                .damaged,
                "the store is damaged (\(health.damagedItems) damaged items; database check: "
                    + "\(health.databaseCheck)). Restore it from a backup; sound items can still be read.")
        }
    }
}
