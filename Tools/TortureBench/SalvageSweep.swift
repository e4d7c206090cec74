import Foundation

/// Part of scenario 1: what is left after damage, for a reader and for `salvage`. A single-bit flip at
/// every byte of the small store's database file, and one page of the large store destroyed (every
/// page in turn, or every nth in quick mode): the fraction of the items still readable by their
/// unique key, the fraction salvage recovers, and salvaged items that are wrong (must be 0).
enum SalvageSweep {
    /// Tallies of one sweep.
    private struct Tally {
        var trials = 0
        var readable = 0
        var salvaged = 0
        var wrong = 0
        var items = 0
        /// The smallest fraction salvaged in a trial whose header could still be unlocked.
        var worstSalvaged = 1.0
        /// Trials in which no copy of the header (the only copy of the wrapped master key) survived.
        var headerLost = 0

        mutating func record(_ outcome: Substring) {
            let fields = outcome.split(separator: " ").compactMap { Int($0) }
            guard fields.count == 5 else {
                wrong += 1
                return
            }
            trials += 1
            readable += fields[0]
            salvaged += fields[1]
            wrong += fields[2]
            items += fields[3]
            if fields[4] == 1 {
                worstSalvaged = min(worstSalvaged, Double(fields[1]) / Double(max(1, fields[3])))
            } else {
                headerLost += 1
            }
        }
    }

    /// Runs both sweeps over the stores `ByteFlipScenario` prepared.
    static func run(_ context: ScenarioContext, small: String, smallSize: Int, large: String, largeSize: Int) {
        var bits = sweep(context, directory: small, kind: "bit", trials: 0..<smallSize)
        report(context, "salvage after a single-bit flip at every byte of the small store's database", &bits, target: nil)
        let pages = largeSize / 4096
        let stride = context.mode.pick(max(1, pages / 24), 1)
        var destroyed = sweep(context, directory: large, kind: "page", trials: 0..<((pages + stride - 1) / stride), stride: stride)
        report(
            context, "salvage after one page of the large store destroyed (every \(stride == 1 ? "" : "\(stride)th ")page of \(pages), each in turn)",
            &destroyed, target: 0.9)
        // The pages holding the header record's copies (meta and meta_copy), each destroyed on its own
        // whatever the stride: before the copy, destroying meta's page lost every item.
        for page in headerPages(large + "/pristine.db") {
            var tally = sweep(context, directory: large, kind: "page", trials: (page - 1)..<page)
            report(
                context, "salvage after the large store's page \(page) (a copy of the header record) destroyed", &tally,
                target: 0.9)
        }
    }

    /// The pages (1-based) of the database file at `path` that hold a header record (its magic and version).
    private static func headerPages(_ path: String) -> [Int] {
        let bytes = readFile(path)
        // The magic and a format version this build reads (1 or 2).
        let magic: [UInt8] = [0x48, 0x54, 0x4B]
        return stride(from: 0, to: bytes.count, by: 4096).compactMap { start in
            let page = bytes[start..<min(start + 4096, bytes.count)]
            let found = page.indices.dropLast(3).contains {
                page[$0..<($0 + 3)].elementsEqual(magic) && (1...2).contains(page[$0 + 3])
            }
            return found ? start / 4096 + 1 : nil
        }
    }

    private static func sweep(
        _ context: ScenarioContext, directory: String, kind: String, trials: Range<Int>, stride: Int = 1
    ) -> Tally {
        var tally = Tally()
        let started = Date()
        let runner = TrialRunner(
            context: context, worker: "salvage",
            arguments: ["--dir", directory, "--kind", kind, "--stride", "\(stride)", "--seed", "\(context.seed)"],
            trialTimeout: 60)
        let incidents = runner.run(trials) { _, outcome in tally.record(outcome) }
        context.check(incidents.isEmpty, "salvage \(kind): \(incidents.count) trials crashed or hung")
        context.say(String(format: "  (%d trials in %.1f s)", tally.trials, Date().timeIntervalSince(started)))
        return tally
    }

    private static func report(_ context: ScenarioContext, _ what: String, _ tally: inout Tally, target: Double?) {
        let items = Double(max(1, tally.items))
        context.say("\(what): \(tally.trials) trials, \(tally.items) item-trials")
        context.say(
            String(
                format: "  still readable by unique key %.1f%%, recovered by salvage %.1f%% (worst trial %.1f%%), wrong %d",
                100 * Double(tally.readable) / items, 100 * Double(tally.salvaged) / items, 100 * tally.worstSalvaged,
                tally.wrong))
        if tally.headerLost > 0 {
            context.say("  \(tally.headerLost) trials destroyed every copy of the store header (the wrapped key): nothing decrypts")
        }
        context.check(tally.wrong == 0, "\(what): \(tally.wrong) salvaged items that were never written")
        if let target {
            context.check(
                tally.worstSalvaged >= target,
                String(format: "\(what): a trial recovered only %.1f%% (target %.0f%%)", 100 * tally.worstSalvaged, 100 * target))
        }
    }
}
