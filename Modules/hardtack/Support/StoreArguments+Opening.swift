import CommandLineKit
import Composition
import Data

extension StoreArguments {
    /// Opens (creating on first use) and unlocks the store a configuration describes, on the store's
    /// threads. A store protected by a passphrase that was opened with something else asks for its
    /// passphrase when standard input is a terminal (echo off), and opens with that: nobody has to put a
    /// passphrase in the environment or a file to use a store by hand.
    /// - Throws: ``CommandFailure/store(_:)`` with the store's reason.
    static func open(_ configuration: StoreConfiguration) async throws(CommandFailure) -> KeychainHandle {
        do throws(SecureStoreError) {
            return try await configuration.open()
        } catch .keySourceMismatch(expected: .passphrase) where Console.inputIsTerminal {
            guard let passphrase = Console.readSecret(prompt: "Passphrase for \(configuration.displayLocation): "),
                !passphrase.isEmpty
            else { throw .store(.keySourceMismatch(expected: .passphrase)) }
            var typed = configuration
            typed.key = .passphrase(passphrase)
            do throws(SecureStoreError) {
                return try await typed.open()
            } catch {
                throw .store(error)
            }
        } catch {
            throw .store(error)
        }
    }

    /// Opens (creating on first use) and unlocks the store these options describe.
    func open(_ context: CommandContext) async throws(CommandFailure) -> KeychainHandle {
        try await Self.open(configuration(context))
    }

    /// Opens (creating on first use) the store, and runs `body` with it. When the store did not exist and
    /// the open or `body` fails (a disk that fills, a refused import), what was created is removed once
    /// the handle is gone: a failed first write leaves no empty store behind, which every later command
    /// would read as damage.
    func withStore<Value>(
        _ context: CommandContext, _ body: (KeychainHandle) async throws(CommandFailure) -> Value
    ) async throws(CommandFailure) -> Value {
        let configuration = try configuration(context)
        let cleanup = NewStoreCleanup(configuration)
        // The handle lives only inside this call, so the store is closed before anything is removed.
        let outcome = await Self.run(configuration, body)
        switch outcome {
        case .success(let value):
            if cleanup.storeIsNew, case .passphrase = configuration.key { TestCostWarning.announce(configuration) }
            return value
        case .failure(let failure):
            await cleanup.removeWhatWasCreated(configuration)
            throw failure
        }
    }

    /// Opens the store and runs `body` with it; the handle is gone when this returns.
    private static func run<Value>(
        _ configuration: StoreConfiguration, _ body: (KeychainHandle) async throws(CommandFailure) -> Value
    ) async -> Result<Value, CommandFailure> {
        do throws(CommandFailure) {
            return .success(try await body(try await open(configuration)))
        } catch {
            return .failure(error)
        }
    }

    /// Opens the store only if it exists: verbs that read or remove never create one.
    /// - Throws: ``CommandFailure/finding(_:_:)`` with exit 44 when there is no store.
    /// With `onlyReads`, a store on read-only media is opened read-only.
    func openExisting(_ context: CommandContext, onlyReads: Bool = false, makingAnchor: Bool = false)
        async throws(CommandFailure) -> KeychainHandle
    {
        var configuration = try configuration(context, onlyReads: onlyReads)
        if makingAnchor { configuration.options.rollbackAnchor?.createIfMissing = true }
        guard await configuration.storeExists else {
            throw .finding(.notFound, "there is no store at \(configuration.displayLocation) yet; add an item first")
        }
        return try await Self.open(configuration)
    }
}
