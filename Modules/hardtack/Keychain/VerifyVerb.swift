import Composition
import Data

/// `verify`: decrypt and check every item and run SQLite's structural check.
enum VerifyVerb {
    /// The verb.
    static let verb = KeychainVerb(
        name: "verify", summary: "Check every item and the database file; exit 65 if anything is damaged.",
        synopsis: "", options: [],
        notes: ["Prints counts only: sound items, damaged items, and SQLite's check (\"ok\" when sound)."],
        run: { context throws(CommandFailure) in
            let handle = try context.openExisting()
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
        })
}
