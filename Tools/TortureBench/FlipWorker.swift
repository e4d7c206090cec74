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

/// `worker flips`: damages a copy of a store's files for each trial, opens it, reads every item every
/// way, and prints how the store answered: `H` (exactly the last committed state: harmless), `D kind`
/// (an error was raised, and nothing returned contradicted the data: detected), `R n` (exactly an
/// earlier committed state: the log's damaged tail was dropped, as after a crash), or `W what` (a
/// wrong answer).
///
/// Arguments: `--dir D` (holding `pristine.db`, optionally `pristine.wal`, `states.json` and
/// `key.hex`), `--log yes|no` (whether the log is part of the store), `--kind db|wal|bits`, `--bits K`
/// (at most K bit flips per trial for `bits`), `--seed`,
/// `--from`, `--to`.
enum FlipWorker {
    static func run(_ arguments: [String]) -> Int32 {
        let options = TrialArguments(arguments)
        guard let directory = options["dir"], let kind = options["kind"],
            let key = bytes(fromHex: String(decoding: readFile(directory + "/key.hex"), as: UTF8.self)),
            let allStates = try? JSONDecoder().decode(
                [[ItemSpec]].self, from: Data(readFile(directory + "/states.json")))
        else { return 2 }
        // Without the log, only the checkpointed state (the first) is in the files.
        let withLog = options["log"] != "no"
        let states = withLog ? allStates : Array(allStates.prefix(1))
        let pristineDB = readFile(directory + "/pristine.db")
        let pristineWAL = withLog ? readFile(directory + "/pristine.wal") : []
        let maxBits = options.int("bits", 1)
        // Trials rewrite the files thousands of times: on a memory file system when there is one (the
        // store's logic is what is tested, not the disk).
        let scratchRoot = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : directory
        let trialDirectory = makeDirectory(scratchRoot + "/hardtack-flips-\(getpid())")
        defer { removeTree(trialDirectory) }
        let path = trialDirectory + "/store.db"
        let everyItem = Array(
            Set(
                states.flatMap { $0 }.map {
                    ItemSpec(
                        kind: $0.kind, primary: $0.primary, account: $0.account, label: nil, comment: nil, secret: [])
                })
        ).sorted()
        for index in options.range {
            var random = SeededGenerator(seed: options.seed ^ (UInt64(index) &* 0x9E37_79B9_7F4A_7C15))
            var db = pristineDB
            var wal = pristineWAL
            switch kind {
            case "db":
                db[index] ^= UInt8.random(in: 1...255, using: &random)
            case "wal":
                wal[index] ^= UInt8.random(in: 1...255, using: &random)
            default:
                let total = db.count + wal.count
                for _ in 0..<Int.random(in: 1...max(1, maxBits), using: &random) {
                    let bit = Int.random(in: 0..<(total * 8), using: &random)
                    if bit / 8 < db.count {
                        db[bit / 8] ^= UInt8(1) << UInt8(bit % 8)
                    } else {
                        wal[bit / 8 - db.count] ^= UInt8(1) << UInt8(bit % 8)
                    }
                }
            }
            remove(path + "-shm")
            remove(path + "-wal")
            writeFile(path, db)
            if !wal.isEmpty { writeFile(path + "-wal", wal) }
            emit("T \(index) " + trial(path: path, key: key, states: states, everyItem: everyItem))
        }
        emit("DONE")
        return 0
    }

    /// Opens the damaged store and classifies its answers.
    static func trial(path: String, key: [UInt8], states: [[ItemSpec]], everyItem: [ItemSpec]) -> String {
        let store: SQLiteSecureItemStore
        do {
            store = try SQLiteSecureItemStore.open(
                at: path, keySource: .key(SecretBytes(key)), options: StoreOptions(busyTimeoutMilliseconds: 2000))
        } catch {
            return "D open:\(StoreReading.kind(of: error))"
        }
        let answers = StoreReading.answers(store, about: everyItem)
        let failures = answers.compactMap { answer -> String? in
            if case .failed(let kind) = answer { kind } else { nil }
        }
        guard let match = states.indices.reversed().first(where: { StoreReading.consistent(answers, with: states[$0]) })
        else {
            // An answer that fits no committed state is a value never written (or an item wrongly
            // missing); when every answer fits some state, the snapshot mixes states.
            let misfits = answers.filter { answer in
                !states.contains { StoreReading.consistent([answer], with: $0) }
            }
            guard let misfit = misfits.first else { return "W answers mix committed states" }
            // The committed state most answers fit: what the misfit is described against.
            let fitting = states.map { state in answers.filter { StoreReading.consistent([$0], with: state) }.count }
            let nearest = fitting.indices.max { fitting[$0] < fitting[$1] }.map { states[$0] } ?? []
            return "W " + StoreReading.describeMismatch([misfit], nearest) + " (\(misfits.count) answers fit no committed state)"
        }
        if !failures.isEmpty { return "D read:" + Set(failures).sorted().joined(separator: ",") }
        return match == states.count - 1 ? "H" : "R \(match)"
    }
}
