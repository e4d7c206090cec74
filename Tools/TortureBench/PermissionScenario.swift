import Data
import Domain
import Foundation
import SQLiteStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Scenario 7: under `umask 000` every file the store makes is 0600 and its directory 0700; a store,
/// directory, key, log or passphrase file that others can read, a symbolic link, or a file owned by
/// another user is refused with an error that names the path and the fix, changing nothing.
enum PermissionScenario {
    static let scenario = Scenario(
        number: 7, name: "permissions",
        title: "umask 000 gives 0600 files and a 0700 directory; group-readable, symlinked and foreign-owned "
            + "stores refused with a helpful error",
        run: run)

    static func run(_ context: ScenarioContext) {
        createdUnderUmask000(context)
        refusals(context)
    }

    // MARK: Modes

    private static func createdUnderUmask000(_ context: ScenarioContext) {
        let directory = context.directory("umask")
        var checked = 0
        var wrong: [String] = []
        func expectMode(_ path: String, _ mode: UInt32) {
            checked += 1
            let actual = modeBits(path)
            if actual != mode {
                wrong.append(
                    "\(path.dropFirst(directory.count)): \(actual.map { String($0, radix: 8) } ?? "absent"), not \(String(mode, radix: 8))"
                )
            }
        }
        func underUmask000(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) {
            let result = context.runner.run(
                "/bin/sh", ["-c", "umask 000; exec \"$0\" \"$@\"", context.hardtack] + arguments, input: input,
                environment: environment)
            context.check(
                result.status == 0,
                "hardtack \(arguments.prefix(3).joined(separator: " ")) under umask 000: \(result.err.prefix(200))")
        }
        // The keychain, with a key file, in directories that do not exist yet.
        let keychain = directory + "/a/b/keychain/store.db"
        underUmask000(
            ["keychain", "--store", keychain, "add-generic-password", "-s", "s", "-a", "a", "-w", "-"], input: "x")
        expectMode(directory + "/a/b/keychain", 0o700)
        expectMode(keychain, 0o600)
        expectMode(keychain + ".key", 0o600)
        // A passphrase store: no key file at all.
        let passphraseStore = directory + "/passphrase/store.db"
        underUmask000(
            ["keychain", "--store", passphraseStore, "add-generic-password", "-s", "s", "-a", "a", "-w", "-"],
            input: "x",
            environment: ["HARDTACK_PASSPHRASE": "umask test"])
        expectMode(directory + "/passphrase", 0o700)
        expectMode(passphraseStore, 0o600)
        context.check(!exists(passphraseStore + ".key"), "a passphrase store got a key file")
        // A new key file made by change-passphrase.
        underUmask000(
            [
                "keychain", "--store", passphraseStore, "change-passphrase", "--new-key-file",
                directory + "/passphrase/new.key",
            ],
            environment: ["HARDTACK_PASSPHRASE": "umask test"])
        expectMode(directory + "/passphrase/new.key", 0o600)
        // The app's store, made by migrate-legacy.
        let legacy = directory + "/legacy.json"
        writeFile(legacy, Array(#"{"Authorization":"Bearer umask-access","refresh":"umask-refresh"}"#.utf8))
        let appStore = directory + "/app/store.db"
        underUmask000(["migrate-legacy", "--store", appStore, legacy])
        expectMode(directory + "/app", 0o700)
        expectMode(appStore, 0o600)
        expectMode(appStore + ".key", 0o600)
        // The log and shared-memory files exist only while a handle is open: open one here, under umask 000.
        let previous = umask(0)
        do {
            let store = try SQLiteSecureItemStore.open(
                at: directory + "/open/store.db", keySource: .keyFile(path: directory + "/open/store.db.key"))
            try store.add(.genericPassword(service: "s"), data: SecretBytes(utf8: "x"))
            underUmask000(
                [
                    "keychain", "--store", directory + "/open/store.db", "add-generic-password", "-s", "t", "-a", "a",
                    "-w", "-",
                ],
                input: "y")
            for suffix in ["", "-wal", "-shm", ".key"] { expectMode(directory + "/open/store.db" + suffix, 0o600) }
            expectMode(directory + "/open", 0o700)
        } catch {
            context.fail("cannot open a store under umask 000: \(error)")
        }
        umask(previous)
        context.say("under umask 000: \(checked) files and directories checked, \(wrong.count) with the wrong mode")
        for line in wrong { context.say("  \(line)") }
        context.check(wrong.isEmpty, "\(wrong.count) files or directories with the wrong mode")
    }

    // MARK: Refusals

    /// One store that must be refused, and the words the error must hold.
    private struct Refusal {
        let name: String
        let arrange: (_ store: String) throws -> Void
        let hints: [String]
        var command: (_ store: String) -> [String] = { store in
            ["keychain", "--store", store, "find-generic-password", "-s", "svc", "-w"]
        }
        var needsRoot = false
    }

    private static func refusals(_ context: ScenarioContext) {
        let root = geteuid() == 0
        let nobody: uid_t = 65534
        let cases: [Refusal] = [
            Refusal(
                name: "store file readable by its group (0640)", arrange: { chmod($0, 0o640) }, hints: ["chmod 600"]),
            Refusal(name: "store file readable by others (0604)", arrange: { chmod($0, 0o604) }, hints: ["chmod 600"]),
            Refusal(
                name: "store directory open to its group (0750)", arrange: { chmod(parent($0), 0o750) },
                hints: ["chmod 700"]),
            Refusal(
                name: "key file readable by its group (0640)", arrange: { chmod($0 + ".key", 0o640) },
                hints: ["chmod 600"]),
            Refusal(
                name: "log file readable by others (0644)",
                arrange: { store in
                    writeFile(store + "-wal", [])
                    chmod(store + "-wal", 0o644)
                }, hints: ["chmod 600"]),
            Refusal(
                name: "store reached through a symbolic link",
                arrange: { store in
                    try FileManager.default.moveItem(atPath: store, toPath: store + ".real")
                    symlink(store + ".real", store)
                }, hints: ["symbolic link"]),
            Refusal(
                name: "key file is a symbolic link",
                arrange: { store in
                    try FileManager.default.moveItem(atPath: store + ".key", toPath: store + ".key.real")
                    symlink(store + ".key.real", store + ".key")
                }, hints: ["symbolic link"]),
            Refusal(
                name: "store path is a directory",
                arrange: { store in
                    remove(store)
                    mkdir(store, 0o700)
                }, hints: ["not a regular file"]),
            Refusal(
                name: "passphrase file readable by others (0644)",
                arrange: { store in
                    writeFile(store + ".passphrase", Array("secret words\n".utf8))
                    chmod(store + ".passphrase", 0o644)
                }, hints: ["chmod"],
                command: { store in
                    [
                        "keychain", "--store", store, "--passphrase-file", store + ".passphrase",
                        "find-generic-password", "-s", "svc",
                    ]
                }),
            Refusal(
                name: "status of a group-readable store", arrange: { chmod($0, 0o640) }, hints: ["chmod 600"],
                command: { store in
                    ["status", "--store", store]
                }),
            Refusal(
                name: "store file owned by nobody", arrange: { chown($0, nobody, gid_t(nobody)) },
                hints: ["belongs to user", "chown"], needsRoot: true),
            Refusal(
                name: "key file owned by nobody", arrange: { chown($0 + ".key", nobody, gid_t(nobody)) },
                hints: ["belongs to user", "chown"], needsRoot: true),
            Refusal(
                name: "store directory owned by nobody", arrange: { chown(parent($0), nobody, gid_t(nobody)) },
                hints: ["belongs to user", "chown"], needsRoot: true),
            Refusal(
                name: "log file owned by nobody",
                arrange: { store in
                    writeFile(store + "-wal", [])
                    chown(store + "-wal", nobody, gid_t(nobody))
                }, hints: ["belongs to user", "chown"], needsRoot: true),
            Refusal(
                name: "me on a store owned by nobody", arrange: { chown($0, nobody, gid_t(nobody)) },
                hints: ["belongs to user"],
                command: { store in
                    ["me", "--store", store, "--server", "http://127.0.0.1:9"]
                }, needsRoot: true),
        ]
        var refused = 0
        var skipped = 0
        for (index, refusal) in cases.enumerated() {
            if refusal.needsRoot && !root {
                skipped += 1
                continue
            }
            let directory = context.directory("refuse-\(index)")
            let store = makeDirectory(directory + "/store") + "/store.db"
            let made = context.hardtack(
                ["keychain", "--store", store, "add-generic-password", "-s", "svc", "-a", "a", "-w", "-"],
                input: "SECRET-\(index)")
            guard made.status == 0 else {
                context.fail("\(refusal.name): cannot make the store: \(made.err)")
                continue
            }
            do {
                try refusal.arrange(store)
            } catch {
                context.fail("\(refusal.name): cannot arrange: \(error)")
                continue
            }
            let files = [store, store + ".key", store + "-wal", store + ".real", store + ".key.real"]
            let before = files.map { fileHash($0) + String(modeBits($0) ?? 0) }
            let result = context.hardtack(refusal.command(store))
            let after = files.map { fileHash($0) + String(modeBits($0) ?? 0) }
            let message = result.err
            let helpful = refusal.hints.allSatisfy { message.contains($0) } && message.contains(directory)
            let ok =
                result.status.map { $0 != 0 && $0 != 3 } == true && result.stdout.isEmpty && helpful && before == after
            if ok { refused += 1 }
            context.say(
                "\(ok ? "ok " : "BAD") \(refusal.name): exit \(result.status.map(String.init) ?? "none"); "
                    + message.replacingOccurrences(of: directory, with: "…").trimmingCharacters(in: .whitespacesAndNewlines)
                    .prefix(150)
            )
            context.check(
                ok,
                "\(refusal.name): exit \(String(describing: result.status)), stdout \(result.stdout.count) bytes, "
                    + "helpful \(helpful), files unchanged \(before == after)"
            )
        }
        context.say(
            "\(cases.count - skipped) unsafe stores, \(refused) refused with a message naming the path and the fix, "
                + "nothing printed on standard output, nothing changed"
                + (skipped > 0 ? "; \(skipped) ownership cases skipped (not root)" : ""))
    }

    private static func parent(_ path: String) -> String {
        URL(fileURLWithPath: path).deletingLastPathComponent().path
    }
}
