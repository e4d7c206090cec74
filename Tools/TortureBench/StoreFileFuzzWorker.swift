import BenchSupport
import Data
import Domain
import Foundation
import SQLiteStore
import StoreCore
import RawSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `worker store-fuzz`: opens store files with random content (random bytes, an SQLite header and
/// random pages, a real store with random stretches overwritten, truncated or extended, a random log
/// beside it, and real SQLite databases with the store's tables holding random cells) and reads
/// everything. Each trial must end in the right values or a typed error. Prints `T index ok|error KIND|W what`.
///
/// Arguments: `--dir D` (holding `pristine.db`, `states.json`, `key.hex`), `--seed`, `--from`, `--to`.
enum StoreFileFuzzWorker {
    static func run(_ arguments: [String]) -> Int32 {
        let options = TrialArguments(arguments)
        guard let directory = options["dir"],
            let key = bytes(fromHex: String(decoding: readFile(directory + "/key.hex"), as: UTF8.self)),
            let states = try? JSONDecoder().decode([[ItemSpec]].self, from: Data(readFile(directory + "/states.json")))
        else { return 2 }
        let pristine = readFile(directory + "/pristine.db")
        let root = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : directory
        let trialDirectory = makeDirectory(root + "/hardtack-store-fuzz-\(getpid())")
        defer { removeTree(trialDirectory) }
        let path = trialDirectory + "/store.db"
        for index in options.range {
            var random = SeededGenerator(seed: options.seed ^ (UInt64(index) &* 0x9E37_79B9_7F4A_7C15))
            for suffix in ["", "-wal", "-shm"] { remove(path + suffix) }
            let mutatedStore = make(path, pristine: pristine, &random)
            emit("T \(index) " + trial(path, key: key, states: mutatedStore ? states : nil))
        }
        emit("DONE")
        return 0
    }

    /// Writes the trial's files; returns whether they derive from the real store (so any value read
    /// must be right).
    private static func make(_ path: String, pristine: [UInt8], _ random: inout SeededGenerator) -> Bool {
        switch Int.random(in: 0..<7, using: &random) {
        case 0:
            writeFile(path, random.bytes(Int.random(in: 0...65536, using: &random)))
            return false
        case 1:
            var bytes = Array("SQLite format 3\u{0}".utf8) + random.bytes(Int.random(in: 84...20000, using: &random))
            if random.chance(0.5) {
                bytes[16] = 0x10
                bytes[17] = 0x00
            }  // a plausible page size
            writeFile(path, bytes)
            return false
        case 2:
            var bytes = pristine
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let start = Int.random(in: 0..<bytes.count, using: &random)
                let length = min(bytes.count - start, Int.random(in: 1...512, using: &random))
                for offset in start..<(start + length) { bytes[offset] = UInt8.random(in: 0...255, using: &random) }
            }
            writeFile(path, bytes)
            return true
        case 3:
            writeFile(path, Array(pristine.prefix(Int.random(in: 0...pristine.count, using: &random))))
            return true
        case 4:
            writeFile(path, pristine + random.bytes(Int.random(in: 1...9000, using: &random)))
            return true
        case 5:
            writeFile(path, pristine)
            // A log with the right magic and page size but random frames.
            var wal: [UInt8] = [0x37, 0x7F, 0x06, 0x82, 0x00, 0x2D, 0xE2, 0x18, 0, 0, 0x10, 0]
            wal += random.bytes(Int.random(in: 20...20000, using: &random))
            writeFile(path + "-wal", wal)
            return true
        default:
            writeFile(path, pristine)
            guard let raw = try? RawDatabase(path: path) else { return true }
            // Random cells in the store's own tables.
            let table = random.pick(["items", "meta", "rows_digest"])
            let column = random.pick(
                table == "items"
                    ? ["class", "grp", "uniq", "prim", "attrs", "data", "id"]
                    : table == "meta" ? ["header", "checksum", "wrapped_key"] : ["value"])
            let value: RawDatabase.Value =
                random.chance(0.2)
                ? .null
                : random.chance(0.2)
                    ? .integer(Int64(bitPattern: random.next()))
                    : random.chance(0.1)
                        ? .text(String(decoding: random.bytes(20), as: UTF8.self))
                        : .blob(random.bytes(Int.random(in: 0...200, using: &random)))
            // The row is picked by the seeded generator (not SQLite's random(), whose state depends on
            // the trials before): a trial replays on its own.
            let rows = (try? raw.query("SELECT rowid FROM \(table) ORDER BY rowid")) ?? []
            if let row = rows.isEmpty ? nil : random.pick(rows) {
                _ = try? raw.query("UPDATE \(table) SET \(column) = ? WHERE rowid = ?", [value, row[0]])
            }
            if random.chance(0.2) {
                _ = try? raw.query(
                    "INSERT INTO items (class, grp, uniq, prim, attrs, data) VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        .integer(Int64.random(in: -2...8, using: &random)), .blob(random.bytes(16)),
                        .blob(random.bytes(16)),
                        .blob(random.bytes(8)), .blob(random.bytes(100)), .blob(random.bytes(80)),
                    ])
            }
            return true
        }
    }

    /// Opens and reads everything; with `states`, whatever is read must match a committed state.
    private static func trial(_ path: String, key: [UInt8], states: [[ItemSpec]]?) -> String {
        let store: SQLiteSecureItemStore
        do {
            store = try SQLiteSecureItemStore.open(
                at: path, keySource: .key(SecretBytes(key)), options: StoreOptions(busyTimeoutMilliseconds: 2000))
        } catch {
            return "error open:" + StoreReading.kind(of: error)
        }
        _ = try? store.verify()
        _ = try? waitFor { () async throws(AuthenticationError) in try await SecureStoreSessionRepository(store: store).load() }
        if let states {
            let answers = StoreReading.answers(store, about: states.flatMap { $0 })
            guard states.contains(where: { StoreReading.consistent(answers, with: $0) }) else {
                return "W " + StoreReading.describeMismatch(answers, states.last ?? [])
            }
        } else {
            _ = try? StoreReading.all(store)
        }
        return "ok"
    }
}
