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

/// `worker salvage`: damages a copy of a store's database file for each trial, then counts how many of
/// the items of the state checkpointed into it (the first) the store still reads exactly (each by its
/// unique key) and how many `salvage` brings back exactly, any salvaged item that is in no committed
/// state (wrong), and whether salvage found a header its key opens. Prints
/// `T index readable salvaged wrong total unlocked` per trial.
///
/// Arguments: `--dir D` (as for `worker flips`), `--kind bit|page`, `--stride S`, `--seed`, `--from`,
/// `--to`. `bit`: trial n flips one random bit of byte n (or, past the file's size, of a seeded random
/// byte); `page`: trial n overwrites page n × S + 1 of the database file with random bytes.
enum SalvageWorker {
    static func run(_ arguments: [String]) -> Int32 {
        let options = TrialArguments(arguments)
        guard let directory = options["dir"], let kind = options["kind"],
            let key = bytes(fromHex: String(decoding: readFile(directory + "/key.hex"), as: UTF8.self)),
            let states = try? JSONDecoder().decode([[ItemSpec]].self, from: Data(readFile(directory + "/states.json"))),
            let last = states.first
        else { return 2 }
        let pristine = readFile(directory + "/pristine.db")
        let pageSize = Int(pristine[16]) << 8 | Int(pristine[17])
        let committed = Set(states.flatMap { $0 })
        let scratchRoot = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : directory
        let trialDirectory = makeDirectory(scratchRoot + "/hardtack-salvage-\(getpid())")
        defer { removeTree(trialDirectory) }
        let path = trialDirectory + "/store.db"
        for index in options.range {
            var random = SeededGenerator(seed: options.seed ^ (UInt64(index) &* 0x9E37_79B9_7F4A_7C15))
            var db = pristine
            if kind == "page" {
                let start = index * options.int("stride", 1) * pageSize
                guard start < db.count else { continue }
                for offset in start..<min(start + pageSize, db.count) { db[offset] = UInt8.random(in: 0...255, using: &random) }
            } else {
                let byte = index < db.count ? index : Int.random(in: 0..<db.count, using: &random)
                db[byte] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
            }
            remove(path + "-shm")
            remove(path + "-wal")
            writeFile(path, db)
            let readable = readableCount(path: path, key: key, expected: last)
            let (salvaged, wrong, unlocked) = salvageCount(path: path, key: key, expected: last, committed: committed)
            emit("T \(index) \(readable) \(salvaged) \(wrong) \(last.count) \(unlocked ? 1 : 0)")
        }
        emit("DONE")
        return 0
    }

    /// How many of `expected` the store answers exactly when each is read by its unique key.
    private static func readableCount(path: String, key: [UInt8], expected: [ItemSpec]) -> Int {
        guard
            let store = try? SQLiteSecureItemStore.open(
                at: path, keySource: .key(SecretBytes(key)), options: StoreOptions(busyTimeoutMilliseconds: 2000))
        else { return 0 }
        return expected.filter { spec in (try? StoreReading.find(store, spec.uniqueQuery)) == [spec] }.count
    }

    /// How many of `expected` salvage brings back exactly, and how many items it brings back that no
    /// committed state holds.
    private static func salvageCount(path: String, key: [UInt8], expected: [ItemSpec], committed: Set<ItemSpec>)
        -> (salvaged: Int, wrong: Int, unlocked: Bool)
    {
        guard let result = try? SQLiteSecureItemStore.salvage(at: path, keySource: .key(SecretBytes(key))) else {
            return (0, 0, false)
        }
        let wanted = Set(expected)
        var salvaged = 0
        var wrong = 0
        for item in result.items {
            guard let spec = ItemSpec(StoredItem(itemClass: item.attributes.itemClass, attributes: item.attributes, data: item.data))
            else {
                wrong += 1
                continue
            }
            if wanted.contains(spec) { salvaged += 1 } else if !committed.contains(spec) { wrong += 1 }
        }
        return (salvaged, wrong, true)
    }
}
