import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `rotate-key` and `change-passphrase` say which they ran; a rotation killed midway (a real process,
/// SIGKILL inside its transaction) leaves the store under its old key, and running it again ends with
/// every item under the new key only.
@Suite struct RotateKeyCommandTests {
    /// Adds `count` items (service s0…, account a, secret x0…) to the sandbox's store under its key file.
    private func populate(_ sandbox: CLISandbox, count: Int) async throws {
        let executable = try #require(HardtackExecutable.path)
        let script = "i=0; while [ $i -lt \(count) ]; do \"$0\" keychain --store \"$1\" add-generic-password -s s$i "
            + "-a a -w x$i || exit 1; i=$((i+1)); done"
        let added = try await sandbox.runProcess("/bin/sh", ["-c", script, executable, sandbox.store])
        #expect(added.status == 0, "\(added.stderr)")
    }

    /// Whether `verify` with `keyFile` finds `count` sound items and nothing damaged, and a few of them
    /// read back exactly.
    private func allSound(_ sandbox: CLISandbox, count: Int, keyFile: String) async throws -> Bool {
        let verify = try await sandbox.keychain(["--key-file", keyFile, "verify", "--json"])
        guard verify.status == 0, verify.stdout.contains("\"sound\": \(count),") else { return false }
        for index in [0, count / 2, count - 1] {
            let found = try await sandbox.keychain(["--key-file", keyFile, "find-generic-password", "-s", "s\(index)", "-w"])
            if found.stdout != "x\(index)\n" { return false }
        }
        return true
    }

    @Test func eachCommandSaysWhichItRan() async throws {
        let sandbox = CLISandbox()
        let environment = CLISandbox.passphrase("old-one")
        try await sandbox.addGeneric(service: "svc", account: "a", secret: "kept", environment: environment)

        var change = environment
        change["HARDTACK_NEW_PASSPHRASE"] = "new-one"
        let rewrapped = try await sandbox.keychain(["change-passphrase"], environment: change)
        #expect(rewrapped.status == 0, "\(rewrapped.stderr)")
        #expect(rewrapped.stdout.hasPrefix("re-wrapped: the same master key."), "\(rewrapped.stdout)")

        // Keeping the passphrase: a new master key under the same one.
        let kept = try await sandbox.keychain(["rotate-key"], environment: CLISandbox.passphrase("new-one"))
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(kept.stdout.hasPrefix("rotated: a new master key, 1 item re-sealed."), "\(kept.stdout)")
        #expect(!kept.stderr.contains("rotate-key:"), "a store of one item printed progress")

        var rotate = CLISandbox.passphrase("new-one")
        rotate["HARDTACK_NEW_PASSPHRASE"] = "third-one"
        let rotated = try await sandbox.keychain(["rotate-key"], environment: rotate)
        #expect(rotated.status == 0, "\(rotated.stderr)")
        #expect(rotated.stdout.hasPrefix("rotated: a new master key, 1 item re-sealed."))
        #expect(!rotated.stdout.contains("third-one") && !rotated.stderr.contains("third-one"))
        let old = try await sandbox.keychain(["find-generic-password", "-s", "svc", "-w"], environment: CLISandbox.passphrase("new-one"))
        #expect(old.status == 77)
        let new = try await sandbox.keychain(["find-generic-password", "-s", "svc", "-w"], environment: CLISandbox.passphrase("third-one"))
        #expect(new.stdout == "kept\n")

        // Both new-key options at once: a usage error, nothing changed.
        let both = try await sandbox.keychain(
            ["rotate-key", "--new-key-file", sandbox.directory.file("k")], environment: rotate)
        #expect(both.status == 2)
        let none = try await sandbox.run(["keychain", "--store", sandbox.directory.file("none/k.db"), "rotate-key"])
        #expect(none.status != 0)
    }

    @Test func aRotationKilledInsideItsTransactionChangesNothingAndRunsAgain() async throws {
        let sandbox = CLISandbox()
        let count = 120
        try await populate(sandbox, count: count)
        let newKey = sandbox.directory.file("new.key")

        // Its standard error a pipe already full: the first progress line (10%, written while the
        // transaction is open) blocks it there, and it is killed.
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        let chunk = [UInt8](repeating: 0x2E, count: 4096)
        while write(fds[1], chunk, chunk.count) > 0 {}
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) & ~O_NONBLOCK)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(HardtackExecutable.path))
        process.arguments = ["keychain", "--store", sandbox.store, "rotate-key", "--new-key-file", newKey]
        process.environment = sandbox.baseEnvironment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(fileDescriptor: fds[1], closeOnDealloc: true)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // It cannot commit without writing that line: once blocked (as /proc shows it), or after a wait
        // where /proc does not show it, it is inside its transaction. Where /proc shows it (as root), the
        // wait ends when it blocks, so its bound is 60 s, only against a hang: under a sanitizer on a busy
        // machine the rotation can take seconds to come to that line.
        let blocked = await waitUntilBlockedOnPipe(process.processIdentifier, seconds: getuid() == 0 ? 60 : 5)
        #expect(process.isRunning, "the rotation ended on its own")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        if getuid() == 0 { #expect(blocked, "the rotation never blocked on its progress line") }

        // Nothing changed: the old key opens every item, the new key file does not.
        #expect(try await allSound(sandbox, count: count, keyFile: sandbox.keyFile))
        if FileManager.default.fileExists(atPath: newKey) {
            #expect(try await sandbox.keychain(["--key-file", newKey, "find-generic-password", "-s", "s0"]).status == 77)
        }

        // Run again: every item re-sealed, with a progress line per tenth, under the new key only.
        let again = try await sandbox.keychain(["rotate-key", "--new-key-file", newKey])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.hasPrefix("rotated: a new master key, \(count) items re-sealed."), "\(again.stdout)")
        let lines = again.stderr.split(separator: "\n").filter { $0.hasPrefix("hardtack: rotate-key: ") }
        #expect(lines.count == 10, "\(again.stderr)")
        #expect(lines.last == "hardtack: rotate-key: \(count) of \(count) items re-sealed under the new master key (100%)")
        #expect(try await sandbox.keychain(["--key-file", sandbox.keyFile, "find-generic-password", "-s", "s0"]).status == 77)
        #expect(try await allSound(sandbox, count: count, keyFile: newKey))
    }

    /// Whether a thread of process `pid` comes to wait in `write(2, …)` within `seconds`. (hardtack is
    /// not dumpable: only root reads its threads' system calls.)
    private func waitUntilBlockedOnPipe(_ pid: Int32, seconds: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            for task in tasks {
                let call = String(decoding: FileBytes.read("/proc/\(pid)/task/\(task)/syscall"), as: UTF8.self)
                if call.hasPrefix("1 0x2 ") { return true }
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}
