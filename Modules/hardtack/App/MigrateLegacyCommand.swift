import Composition
import Data
import Domain

/// `hardtack migrate-legacy FILE`: move tokens from an old plaintext preferences file into the store.
enum MigrateLegacyCommand {
    static let command = AppCommand(
        name: "migrate-legacy",
        summary: "Import tokens an older version kept in a plaintext JSON file, then wipe and delete the file.",
        options: [], operands: "FILE", usesServer: false,
        notes: [
            "FILE is a JSON object such as {\"Authorization\": \"…\", \"refresh\": \"…\"}. The tokens are stored in "
                + "one transaction before the file is overwritten with zeros, flushed and deleted; running it twice, "
                + "or again after it was killed, is safe."
        ],
        run: { context, operands throws(CommandFailure) in
            let store = try GlobalOptions.configuration(context.options, environment: context.environment, parser: context.parser)
            let local: LocalSession
            do throws(SecureStoreError) {
                local = try LocalSession(store: store)
            } catch {
                throw .store(error)
            }
            let outcome = try await authStep { () async throws(AuthenticationError) in
                try local.migrateLegacyTokens(from: operands[0])()
            }
            switch outcome {
            case .nothingToMigrate: Console.print("nothing to migrate: \(operands[0]) does not exist")
            case .imported: Console.print("imported the tokens into \(local.storePath); the plaintext file is gone")
            case .alreadyMigrated: Console.print("a session was already stored; the plaintext file was wiped and deleted")
            }
        })
}
