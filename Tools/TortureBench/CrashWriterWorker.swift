import BenchSupport
import Data
import Domain
import Foundation
import SQLiteStore
import StoreCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `worker crash-writer`: writes to a store until it is killed (or its time is up): adds, updates,
/// renames and deletes items, rotates the session's token pair, changes the key, checkpoints. Before
/// each write it appends `B seq op…` to a log and `fdatasync`s it; once the store has returned, it
/// appends `A seq` the same way. So the log, outside the store, says which commits were acknowledged.
///
/// Arguments: `--store PATH`, `--key SPEC` (`k:HEX`, `p:TEXT`, or `file` for the key file beside a
/// store it creates), `--log PATH`, `--seed N`, `--seconds N`.
enum CrashWriterWorker {
    static let service = "crash"

    static func run(_ arguments: [String]) -> Int32 {
        let options = TrialArguments(arguments)
        guard let path = options["store"], let keySpec = options["key"], let logPath = options["log"] else { return 2 }
        let log = open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard log >= 0 else { return 2 }
        func record(_ line: String) {
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(log, $0.baseAddress, $0.count) }
            fdatasync(log)
        }
        let creating = keySpec == "file"
        guard let source = creating ? KeySource.keyFile(path: path + ".key") : CrashKeys.source(keySpec) else {
            return 2
        }
        let store: SQLiteSecureItemStore
        do {
            store = try SQLiteSecureItemStore.open(at: path, keySource: source, options: CrashKeys.options)
        } catch {
            record("E 0 open: \(error)")
            return 1
        }
        let repository = SecureStoreSessionRepository(store: store)
        var random = SeededGenerator(seed: options.seed)
        var accounts: [String]
        var generation = 0
        do {
            accounts = try StoreReading.find(store, .genericPassword(service: service)).map(\.account).sorted()
            if let session = try waitFor({ () async throws(AuthenticationError) in try await repository.load() }), let value = session.accessToken.value.revealedString() {
                generation = Int(value.split(separator: ".")[1]) ?? 0
            }
        } catch {
            record("E 0 read: \(error)")
            return 1
        }
        let deadline = Date().addingTimeInterval(Double(options.int("seconds", 30)))
        var sequence = 0
        while Date() < deadline {
            sequence += 1
            let roll = Int.random(in: 0..<100, using: &random)
            let op: CrashOp
            if accounts.isEmpty || roll < 20 {
                let account = "item-" + random.hex(8)
                op = .add(account: account, data: data(sequence, &random))
            } else if roll < 45 {
                op = .update(account: random.pick(accounts), data: data(sequence, &random))
            } else if roll < 53 {
                op = .rename(from: random.pick(accounts), to: "item-" + random.hex(8))
            } else if roll < 65 {
                op = .delete(account: random.pick(accounts))
            } else if roll < 90 {
                generation += 1
                op = .rotate(
                    generation: generation, access: "acc.\(generation).\(random.hex(24))",
                    refresh: "ref.\(generation).\(random.hex(24))")
            } else if roll < 95 && !creating {
                let key = random.chance(0.25) ? "p:" + random.hex(12) : "k:" + hex(random.bytes(32))
                // A rotation re-seals every item in one transaction: a longer window for the kill.
                op = roll < 93 ? .rekey(key: key) : .rotateKey(key: key)
            } else {
                // A checkpoint changes nothing the model holds; it is not logged.
                try? store.checkpoint()
                continue
            }
            record("B \(sequence) \(op.encoded)")
            do {
                try perform(op, store: store, repository: repository)
            } catch {
                record("E \(sequence) \(error)")
                return 1
            }
            record("A \(sequence)")
            switch op {
            case .add(let account, _): accounts.append(account)
            case .rename(let from, let to):
                accounts.removeAll { $0 == from }
                accounts.append(to)
            case .delete(let account): accounts.removeAll { $0 == account }
            default: break
            }
        }
        return 0
    }

    private static func data(_ sequence: Int, _ random: inout SeededGenerator) -> String {
        "d\(sequence)-" + random.hex(Int.random(in: 8...120, using: &random))
    }

    private static func item(_ account: String) -> ItemAttributes {
        .genericPassword(service: service, account: account, label: "crash item")
    }

    private static func perform(
        _ op: CrashOp, store: SQLiteSecureItemStore, repository: SecureStoreSessionRepository
    )
        throws
    {
        switch op {
        case .add(let account, let data):
            try store.add(item(account), data: SecretBytes(utf8: data))
        case .update(let account, let data):
            try store.update(
                .genericPassword(service: service, account: account), attributes: nil, data: SecretBytes(utf8: data))
        case .rename(let from, let to):
            try store.update(
                .genericPassword(service: service, account: from), attributes: .genericPassword(account: to), data: nil)
        case .delete(let account):
            try store.delete(.genericPassword(service: service, account: account))
        case .rotate(_, let access, let refresh):
            let now = Date()
            let session = Session(
                accessToken: try AccessToken(
                    value: SecretBytes(utf8: access), issuedAt: now, expiresAt: now.addingTimeInterval(300)),
                refreshToken: try RefreshToken(value: SecretBytes(utf8: refresh)),
                user: User(id: "crash", name: "Crash"), method: .password)
            try waitFor { () async throws(AuthenticationError) in try await repository.replace(with: session) }
        case .rekey(let key):
            guard let source = CrashKeys.source(key) else { throw SecureStoreError.invalidKeyMaterial("bad spec") }
            try store.changeKey(to: source)
        case .rotateKey(let key):
            guard let source = CrashKeys.source(key) else { throw SecureStoreError.invalidKeyMaterial("bad spec") }
            try store.rotateKey(to: source)
        }
    }
}
