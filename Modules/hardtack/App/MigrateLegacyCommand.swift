import CommandLineKit
import Composition
import Data
import Domain
import Foundation

/// `hardtack migrate-legacy FILE`: move tokens from an old plaintext preferences file into the store.
struct MigrateLegacyCommand: HardtackCommand {
    static let configuration = CommandConfiguration(
        name: "migrate-legacy",
        abstract: "Import tokens an older version kept in a plaintext JSON file, then wipe and delete the file.",
        discussion: [
            "FILE is a JSON object such as {\"Authorization\": \"…\", \"refresh\": \"…\"}. The tokens are stored in "
                + "one transaction before the file is overwritten with zeros, flushed and deleted; running it twice, "
                + "or again after it was killed, is safe."
        ],
        exitStatuses: ExitStatus.appTable)

    /// The plaintext file.
    @Argument("FILE", help: "The plaintext JSON preferences file.") var file: String
    /// The store.
    @OptionGroup(title: "Store options") var store: StoreArguments

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        let store = try store.configuration(context)
        // Nothing to migrate is no reason to create a store.
        let exists = FileManager.default.fileExists(atPath: file) ? true : await store.storeExists
        guard exists else {
            Console.print("nothing to migrate: \(file) does not exist (no store was created)")
            return
        }
        let local: LocalSession
        do throws(SecureStoreError) {
            local = try await LocalSession(store: store)
        } catch {
            throw .store(error)
        }
        let outcome = try await authStep { () async throws(AuthenticationError) in
            try await local.migrateLegacyTokens(from: file)()
        }
        switch outcome {
        case .nothingToMigrate: Console.print("nothing to migrate: \(file) does not exist")
        case .imported: Console.print("imported the tokens into \(local.storePath); the plaintext file is gone")
        case .alreadyMigrated: Console.print("a session was already stored; the plaintext file was wiped and deleted")
        }
    }
}
