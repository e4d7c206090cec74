import BenchSupport
import Data
import Domain
import Foundation
import SQLiteStore
@_spi(HardtackTools) import StoreCore
import RawSQLite

/// Scenario 3: wrong, damaged and tampered keys. Each case must fail with its own, expected error,
/// decrypt nothing, and leave every byte of the store and its key file as it was.
enum KeyScenario {
    static let scenario = Scenario(
        number: 3, name: "keys",
        title: "wrong passphrase or key file, truncated or empty key, tampered KDF parameters or salt: "
            + "the expected error each time, nothing decrypted, files unchanged",
        run: run)

    /// The store a case starts from.
    private enum Base {
        case passphrase, keyFile
    }

    /// One case: which store, what it does to the files, what it opens with, and the error it expects.
    private struct Case {
        let name: String
        let base: Base
        let expected: String
        let prepare: (Paths) throws -> KeySource
    }

    /// The files of one case's copy of the store.
    private struct Paths {
        let store: String
        let keyFile: String
    }

    private static let passphrase = "correct horse battery staple"
    private static let secret = "KEYS-SCENARIO-SECRET-5d1e"

    /// Byte offsets in the store header.
    private enum Offset {
        static let version = 3
        static let storeID = 4
        static let keyKind = 20
        static let opsLimit = 21
        static let memLimit = 29
        static let salt = 37
    }

    static func run(_ context: ScenarioContext) {
        let directory = context.directory("keys")
        let bases: [Base: Paths] = [
            .passphrase: Paths(
                store: directory + "/base-passphrase/store.db", keyFile: directory + "/base-passphrase/unused.key"),
            .keyFile: Paths(
                store: directory + "/base-keyfile/store.db", keyFile: directory + "/base-keyfile/store.db.key"),
        ]
        do {
            for (base, paths) in bases {
                let source: KeySource =
                    base == .passphrase ? .passphrase(SecretBytes(utf8: passphrase)) : .keyFile(path: paths.keyFile)
                let store = try SQLiteSecureItemStore.open(
                    at: paths.store, keySource: source, options: StoreOptions(passphraseCost: .interactive))
                try store.add(.genericPassword(service: "svc", account: "a"), data: SecretBytes(utf8: secret))
            }
        } catch {
            context.fail("cannot create the stores: \(error)")
            return
        }
        var passed = 0
        let all = cases(&context.random)
        for testCase in all {
            let caseDirectory = context.directory(
                "case-\(passed)-\(testCase.name.filter { $0.isLetter || $0.isNumber })")
            let base = bases[testCase.base]!
            let paths = Paths(store: caseDirectory + "/store.db", keyFile: caseDirectory + "/store.db.key")
            writeFile(paths.store, readFile(base.store))
            if exists(base.keyFile) { writeFile(paths.keyFile, readFile(base.keyFile)) }
            let source: KeySource
            do {
                source = try testCase.prepare(paths)
            } catch {
                context.fail("\(testCase.name): cannot prepare: \(error)")
                continue
            }
            let before = [fileHash(paths.store), fileHash(paths.keyFile)]
            let outcome: String
            do {
                let store = try SQLiteSecureItemStore.open(
                    at: paths.store, keySource: source, options: StoreOptions(passphraseCost: .interactive))
                let read = try? store.findString(.genericPassword(service: "svc", account: "a"))
                outcome = read == secret ? "opened and decrypted" : "opened"
            } catch {
                outcome = StoreReading.kind(of: error) + ": " + error.description
            }
            let after = [fileHash(paths.store), fileHash(paths.keyFile)]
            let leftovers = [paths.store + "-wal", paths.store + "-shm"].filter(exists).count
            let kind = outcome.split(separator: ":").first.map(String.init) ?? outcome
            let ok = kind == testCase.expected && before == after
            if ok { passed += 1 }
            context.say(
                "\(ok ? "ok  " : "BAD ") \(testCase.name): \(String(outcome.prefix(110)))"
                    + (before == after ? "" : " — FILES CHANGED")
                    + (leftovers > 0 ? " (\(leftovers) log files left)" : ""))
            context.check(kind == testCase.expected, "\(testCase.name): expected \(testCase.expected), got \(outcome)")
            context.check(before == after, "\(testCase.name): the store or key file changed")
        }
        context.say(
            "\(all.count) cases: \(passed) gave the expected error with every file unchanged; secrets decrypted 0")
        cliCases(context, bases: bases)
    }

    // MARK: Cases

    private static func cases(_ random: inout SeededGenerator) -> [Case] {
        let wrongKey = random.bytes(32)
        let wrongHex = hex(random.bytes(32))
        return [
            Case(name: "wrong passphrase", base: .passphrase, expected: "wrong-key") { _ in
                .passphrase(SecretBytes(utf8: "correct horse battery stapler"))
            },
            Case(name: "empty passphrase", base: .passphrase, expected: "invalid-key") { _ in
                .passphrase(SecretBytes([UInt8]()))
            },
            Case(name: "key file for a passphrase store", base: .passphrase, expected: "key-source-mismatch") { paths in
                writeFile(paths.keyFile, wrongKey)
                return .keyFile(path: paths.keyFile)
            },
            Case(name: "wrong key file (32 other bytes)", base: .keyFile, expected: "wrong-key") { paths in
                writeFile(paths.keyFile, wrongKey)
                return .keyFile(path: paths.keyFile)
            },
            Case(name: "key file truncated to 31 bytes", base: .keyFile, expected: "invalid-key") { paths in
                writeFile(paths.keyFile, Array(readFile(paths.keyFile).prefix(31)))
                return .keyFile(path: paths.keyFile)
            },
            Case(name: "key file truncated to 1 byte", base: .keyFile, expected: "invalid-key") { paths in
                writeFile(paths.keyFile, Array(readFile(paths.keyFile).prefix(1)))
                return .keyFile(path: paths.keyFile)
            },
            Case(name: "empty key file", base: .keyFile, expected: "invalid-key") { paths in
                writeFile(paths.keyFile, [])
                return .keyFile(path: paths.keyFile)
            },
            Case(name: "key file with one byte too many", base: .keyFile, expected: "invalid-key") { paths in
                writeFile(paths.keyFile, readFile(paths.keyFile) + [0x0A])
                return .keyFile(path: paths.keyFile)
            },
            Case(name: "key file missing", base: .keyFile, expected: "invalid-key") { paths in
                remove(paths.keyFile)
                return .keyFile(path: paths.keyFile)
            },
            Case(name: "passphrase for a key-file store", base: .keyFile, expected: "key-source-mismatch") { _ in
                .passphrase(SecretBytes(utf8: passphrase))
            },
            Case(name: "wrong raw key (64 hex digits)", base: .keyFile, expected: "wrong-key") { _ in
                .key(SecretBytes(bytes(fromHex: wrongHex) ?? []))
            },
            Case(name: "KDF ops limit changed, checksum left", base: .passphrase, expected: "integrity") { paths in
                try editHeader(paths, recompute: false) { setNumber(&$0, Offset.opsLimit, 3) }
                return right(paths)
            },
            Case(name: "KDF ops limit changed, checksum recomputed", base: .passphrase, expected: "wrong-key") {
                paths in
                try editHeader(paths, recompute: true) { setNumber(&$0, Offset.opsLimit, 3) }
                return right(paths)
            },
            Case(name: "KDF memory limit doubled, checksum recomputed", base: .passphrase, expected: "wrong-key") {
                paths in
                try editHeader(paths, recompute: true) { setNumber(&$0, Offset.memLimit, 128 << 20) }
                return right(paths)
            },
            Case(name: "KDF memory limit 16 GiB, checksum recomputed", base: .passphrase, expected: "integrity") {
                paths in
                try editHeader(paths, recompute: true) { setNumber(&$0, Offset.memLimit, 16 << 30) }
                return right(paths)
            },
            Case(name: "KDF ops limit 0, checksum recomputed", base: .passphrase, expected: "integrity") { paths in
                try editHeader(paths, recompute: true) { setNumber(&$0, Offset.opsLimit, 0) }
                return right(paths)
            },
            Case(name: "salt changed, checksum left", base: .passphrase, expected: "integrity") { paths in
                try editHeader(paths, recompute: false) { $0[Offset.salt + 5] ^= 0x20 }
                return right(paths)
            },
            Case(name: "salt changed, checksum recomputed", base: .passphrase, expected: "wrong-key") { paths in
                try editHeader(paths, recompute: true) { $0[Offset.salt + 5] ^= 0x20 }
                return right(paths)
            },
            Case(name: "key-file store's salt changed, checksum recomputed", base: .keyFile, expected: "wrong-key") {
                paths in
                try editHeader(paths, recompute: true) { $0[Offset.salt] ^= 0x01 }
                return right(paths)
            },
            Case(name: "key kind switched, checksum recomputed", base: .passphrase, expected: "key-source-mismatch") {
                paths in
                try editHeader(paths, recompute: true) { $0[Offset.keyKind] = 2 }
                return right(paths)
            },
            Case(name: "store id changed, checksum recomputed", base: .passphrase, expected: "wrong-key") { paths in
                try editHeader(paths, recompute: true) { $0[Offset.storeID] ^= 0x80 }
                return right(paths)
            },
            Case(name: "format version raised, checksum recomputed", base: .keyFile, expected: "storage(newerFormat)") { paths in
                try editHeader(paths, recompute: true) { $0[Offset.version] = StoreFormat.current + 1 }
                return right(paths)
            },
            // Format 1 writes two ciphertexts per row, formats 1 and 2 keep plain digests; the wrapped
            // key's additional data is the header, so a store cannot be made to pass for an older format,
            // and since the key does unwrap under the real format, the edit is named as damage.
            Case(name: "format version set back to 1, checksum recomputed", base: .keyFile, expected: "integrity") { paths in
                try editHeader(paths, recompute: true) { $0[Offset.version] = 1 }
                return right(paths)
            },
            Case(name: "format version set back to 2, checksum recomputed", base: .passphrase, expected: "integrity") {
                paths in
                try editHeader(paths, recompute: true) { $0[Offset.version] = 2 }
                return right(paths)
            },
            Case(name: "wrapped key damaged", base: .passphrase, expected: "integrity") { paths in
                try editMeta(paths, "wrapped_key") { $0[30] ^= 0x01 }
                return right(paths)
            },
            Case(name: "wrapped key edited, checksum recomputed", base: .passphrase, expected: "wrong-key") { paths in
                try editMeta(paths, "wrapped_key") { $0[30] ^= 0x01 }
                try editHeader(paths, recompute: true) { _ in }
                return right(paths)
            },
            Case(name: "checksum damaged", base: .keyFile, expected: "integrity") { paths in
                try editMeta(paths, "checksum") { $0[0] ^= 0xFF }
                return right(paths)
            },
            Case(name: "header rows deleted (both copies)", base: .keyFile, expected: "integrity") { paths in
                let raw = try RawDatabase(path: paths.store)
                for table in ["meta", "meta_copy"] { try raw.query("DELETE FROM \(table)") }
                return right(paths)
            },
            // The attack a rotation answers: the header from before it (a backup's) put back in both
            // copies, opened with the same passphrase. The old master key unwraps; nothing decrypts.
            Case(name: "old header grafted back after a key rotation", base: .passphrase, expected: "opened") { paths in
                let old = try RawDatabase(path: paths.store).query("SELECT header, checksum, wrapped_key FROM meta")[0]
                do {
                    let store = try SQLiteSecureItemStore.open(
                        at: paths.store, keySource: right(paths), options: StoreOptions(passphraseCost: .interactive))
                    try store.rotateKey(to: right(paths))
                }
                let raw = try RawDatabase(path: paths.store)
                for table in ["meta", "meta_copy"] {
                    try raw.query("UPDATE \(table) SET header = ?, checksum = ?, wrapped_key = ?", old)
                }
                try raw.query("PRAGMA wal_checkpoint(TRUNCATE)")
                return right(paths)
            },
            Case(name: "header copy's salt changed, checksum recomputed", base: .passphrase, expected: "integrity") {
                paths in
                // Two sound copies that differ: neither is chosen.
                let raw = try RawDatabase(path: paths.store)
                var header = try raw.blob("SELECT header FROM meta_copy")
                header[Offset.salt] ^= 0x01
                let wrapped = try raw.blob("SELECT wrapped_key FROM meta_copy")
                try raw.query(
                    "UPDATE meta_copy SET header = ?, checksum = ?", [.blob(header), .blob(blake2b256(header + wrapped))])
                try raw.query("PRAGMA wal_checkpoint(TRUNCATE)")
                return right(paths)
            },
        ]
    }

    /// What opens the case's copy when nothing but the file was changed.
    private static func right(_ paths: Paths) -> KeySource {
        exists(paths.keyFile) ? .keyFile(path: paths.keyFile) : .passphrase(SecretBytes(utf8: passphrase))
    }

    private static func setNumber(_ header: inout [UInt8], _ offset: Int, _ value: UInt64) {
        for index in 0..<8 { header[offset + index] = UInt8(truncatingIfNeeded: value >> (56 - 8 * index)) }
    }

    /// Edits the header; with `recompute`, writes a matching checksum as an attacker who knows the format would.
    private static func editHeader(_ paths: Paths, recompute: Bool, _ edit: (inout [UInt8]) -> Void) throws {
        let raw = try RawDatabase(path: paths.store)
        var header = try raw.blob("SELECT header FROM meta")
        edit(&header)
        try raw.query("UPDATE meta SET header = ?", [.blob(header)])
        if recompute {
            let wrapped = try raw.blob("SELECT wrapped_key FROM meta")
            try raw.query("UPDATE meta SET checksum = ?", [.blob(blake2b256(header + wrapped))])
        }
        try raw.query("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    private static func editMeta(_ paths: Paths, _ column: String, _ edit: (inout [UInt8]) -> Void) throws {
        let raw = try RawDatabase(path: paths.store)
        var value = try raw.blob("SELECT \(column) FROM meta")
        edit(&value)
        try raw.query("UPDATE meta SET \(column) = ?", [.blob(value)])
        try raw.query("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    // MARK: The command line

    /// The same refusals through `hardtack keychain`: the documented exit status, nothing on standard
    /// output (no secret), the files unchanged.
    private static func cliCases(_ context: ScenarioContext, bases: [Base: Paths]) {
        let directory = context.directory("cli")
        let wrongPassphraseFile = directory + "/wrong-passphrase"
        writeFile(wrongPassphraseFile, Array("not the passphrase\n".utf8))
        let cases: [(String, Base, [String], (Paths) -> Void, Int32)] = [
            ("wrong passphrase", .passphrase, ["--passphrase-file", wrongPassphraseFile], { _ in }, 77),
            ("wrong key file", .keyFile, [], { writeFile($0.keyFile, Array(repeating: 7, count: 32)) }, 77),
            ("truncated key file", .keyFile, [], { writeFile($0.keyFile, Array(readFile($0.keyFile).prefix(16))) }, 77),
            ("empty key file", .keyFile, [], { writeFile($0.keyFile, []) }, 77),
            (
                "damaged wrapped key", .keyFile, [],
                { paths in
                    try? editMeta(Paths(store: paths.store, keyFile: paths.keyFile), "wrapped_key") { $0[40] ^= 2 }
                }, 65
            ),
        ]
        for (name, base, options, prepare, expected) in cases {
            let paths = Paths(
                store: directory + "/\(name.filter(\.isLetter)).db",
                keyFile: directory + "/\(name.filter(\.isLetter)).db.key")
            writeFile(paths.store, readFile(bases[base]!.store))
            if base == .keyFile { writeFile(paths.keyFile, readFile(bases[base]!.keyFile)) }
            prepare(paths)
            let before = [fileHash(paths.store), fileHash(paths.keyFile)]
            let result = context.hardtack(
                ["keychain", "--store", paths.store] + options + [
                    "find-generic-password", "-s", "svc", "-a", "a", "-w",
                ])
            let after = [fileHash(paths.store), fileHash(paths.keyFile)]
            let ok = result.status == expected && result.stdout.isEmpty && before == after
            context.say(
                "\(ok ? "ok  " : "BAD ") hardtack keychain find-generic-password -w, \(name): exit "
                    + "\(result.status.map(String.init) ?? "none"), stdout \(result.stdout.count) bytes: "
                    + result.err.trimmingCharacters(in: .whitespacesAndNewlines).prefix(100)
            )
            context.check(
                ok,
                "CLI \(name): exit \(String(describing: result.status)) (expected \(expected)), stdout "
                    + "\(result.stdout.count) bytes, files \(before == after ? "unchanged" : "CHANGED")"
            )
        }
    }
}
