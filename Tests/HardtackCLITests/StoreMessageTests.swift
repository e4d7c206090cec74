import Foundation
import TestSupport
import Testing

/// Store failures said by kind in the user's words (no result codes or SQL unless `--verbose`), and a
/// store on read-only media that still reads, with every page checksum checked.
@Suite(.enabled(if: ReadOnlyMedia.isAvailable, "needs a read-only bind mount or chattr +i"))
struct StoreMessageTests {
    let sandbox = CLISandbox()

    private var storeDirectory: String { sandbox.directory.file("store") }

    @Test func readsWorkOnReadOnlyMediaAndWritesSaySo() async throws {
        try await sandbox.addGeneric(service: "svc", account: "a", secret: "first")
        try await sandbox.addGeneric(service: "other", account: "a", secret: "second")
        let before = FileBytes.read(sandbox.store)

        let find = try await ReadOnlyMedia.run(
            sandbox, readOnly: storeDirectory, ["keychain", "--store", sandbox.store, "find-generic-password", "-s", "svc", "-w"])
        #expect(find.status == 0, "\(find.stderr)")
        #expect(find.stdout == "first\n")
        let verify = try await ReadOnlyMedia.run(sandbox, readOnly: storeDirectory, ["keychain", "--store", sandbox.store, "verify"])
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stdout.contains("sound items: 2"))
        let dump = try await ReadOnlyMedia.run(sandbox, readOnly: storeDirectory, ["keychain", "--store", sandbox.store, "dump"])
        #expect(dump.status == 0 && dump.stdout.contains("\"other\""), "\(dump.stderr)")
        let status = try await ReadOnlyMedia.run(sandbox, readOnly: storeDirectory, ["status", "--store", sandbox.store])
        #expect(status.status == 3, "\(status.stderr)")  // Read, and no session in it: signed out, not 75.

        let add = try await ReadOnlyMedia.run(
            sandbox, readOnly: storeDirectory,
            ["keychain", "--store", sandbox.store, "add-generic-password", "-s", "new", "-a", "a", "-w", "third"])
        #expect(add.status == 1)
        #expect(add.stderr.contains("cannot be written"))
        #expect(add.stderr.contains("writes are impossible"))
        #expect(!add.stderr.contains("SQLite result") && !add.stderr.contains("errno") && !add.stderr.contains("SELECT"))
        #expect(!add.stderr.contains("third"))
        let verbose = try await ReadOnlyMedia.run(
            sandbox, readOnly: storeDirectory,
            ["keychain", "--verbose", "--store", sandbox.store, "add-generic-password", "-s", "new", "-a", "a", "-w", "x"])
        #expect(verbose.status == 1)
        #expect(verbose.stderr.contains("errno"))
        // Nothing beside the store was made or changed.
        #expect(FileBytes.read(sandbox.store) == before)
        #expect(!FileManager.default.fileExists(atPath: sandbox.store + "-shm"))
    }

    @Test func pageChecksumsAreCheckedOnTheReadOnlyPath() async throws {
        try await sandbox.addGeneric(service: "svc", account: "a", secret: "first")
        var bytes = FileBytes.read(sandbox.store)
        // A byte in page 1's free space: neither SQLite's structure check nor any item's authentication
        // reads it; only the page checksum can see it changed.
        let offset = 1000
        #expect(bytes.count > 4096 && bytes[offset] == 0)
        bytes[offset] = 0x01
        try FileBytes.write(bytes, to: sandbox.store)
        for arguments in [["verify"], ["find-generic-password", "-s", "svc", "-w"]] {
            let result = try await ReadOnlyMedia.run(
                sandbox, readOnly: storeDirectory, ["keychain", "--store", sandbox.store] + arguments)
            #expect(result.status == 65, "\(arguments): \(result.stdout) \(result.stderr)")
            #expect(result.stderr.contains("checksum"))
            #expect(!result.stdout.contains("first"))
        }
    }

    @Test(.enabled(if: ReadOnlyMedia.method == .bindMount, "needs a private mount namespace"))
    func aFullDiskSaysSoAndNeverCannotBeRead() async throws {
        let script = #"""
            mount -t tmpfs -o size=160k,mode=0700 tmpfs "$1" || exit 99
            "$2" keychain --store "$1/k.db" add-generic-password -s small -a a -w s || exit 98
            head -c 400000 /dev/zero | tr '\0' 'x' | "$2" keychain --store "$1/k.db" add-generic-password -s big -a a -w -
            """#
        let executable = try #require(HardtackExecutable.path)
        let directory = sandbox.directory.file("small")
        #expect(mkdir(directory, 0o700) == 0)
        let result = try await ReadOnlyMedia.inNamespace(sandbox, script, [directory, executable])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("disk is full"))
        #expect(result.stderr.contains("Free some disk space"))
        #expect(!result.stderr.contains("cannot be read") && !result.stderr.contains("SQLite result"))
        #expect(!result.stderr.contains("COMMIT") && !result.stderr.contains("xxxx"))
    }

    @Test(.enabled(if: ReadOnlyMedia.method == .bindMount, "needs a private mount namespace"))
    func aFirstWriteOnAFullDiskLeavesNoStoreBehind() async throws {
        // Too small for a store: the first add and the first sign-in fail, and what they began is removed,
        // so the next try (with space freed) is not refused as a damaged store.
        let script = #"""
            mount -t tmpfs -o size=12k,mode=0700 tmpfs "$1" || exit 99
            "$2" keychain --store "$1/k.db" add-generic-password -s small -a a -w s; echo "add=$?"
            echo wonderland | "$2" signin --server http://127.0.0.1:9 --username alice --password-stdin --store "$1/s.db"
            echo "signin=$?"
            ls -A "$1"; echo "listed"
            """#
        let executable = try #require(HardtackExecutable.path)
        let directory = sandbox.directory.file("tiny")
        #expect(mkdir(directory, 0o700) == 0)
        let result = try await ReadOnlyMedia.inNamespace(sandbox, script, [directory, executable])
        #expect(result.stdout.contains("add=1\n"), "\(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains("signin=1\n"), "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("disk is full"))
        // Nothing between the statuses and the end of the listing: the directory is empty.
        #expect(result.stdout.hasSuffix("signin=1\nlisted\n"), "left behind: \(result.stdout)")
    }
}
