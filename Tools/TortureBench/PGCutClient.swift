import BenchSupport
import Data
import Domain
import Foundation
@_spi(HardtackTools) import PostgreSQLStore
import StoreCore

/// One client thread of the cut scenario: adds items and reads back ones it added, through a handle
/// of its own, while its connection is cut under it; it times every call and sorts every outcome.
struct PGCutClient {
    /// What one client saw.
    struct Report: Sendable {
        /// Items whose add returned: account → value.
        var acknowledged: [String: String] = [:]
        /// Adds that failed with "may or may not have been saved".
        var uncertain: [String: String] = [:]
        /// Adds that failed otherwise: they must not have been saved.
        var failed: [String] = []
        /// Calls made.
        var calls = 0
        /// The slowest call, in seconds.
        var slowest = 0.0
        /// Calls slower than the bound.
        var hangs = 0
        /// Reads that returned another value or "not found" for an acknowledged item.
        var wrongReads: [String] = []
        /// Errors by kind.
        var errors: [String: Int] = [:]
        /// Calls that failed.
        var failedCalls = 0
        /// Calls begun after the cutting had stopped that failed (each must succeed: the adapter
        /// reopens a cut connection on the next call).
        var failedAfterCuts = 0
        /// Calls begun after the cutting had stopped.
        var callsAfterCuts = 0
        /// Whether the handle opened at all.
        var opened = false
    }

    /// The store's URI.
    let uri: String
    /// The store's raw key.
    let key: [UInt8]
    /// The client's number, in its items' accounts.
    let index: Int
    /// The seed of its random choices.
    let seed: UInt64
    /// A call slower than this is a hang: connect 5 s + call 10 s + cancel grace 2 s, and some slack.
    static let bound = 20.0

    /// Its `application_name`, by which the cutter picks it.
    var name: String { "hardtack-cut-\(index)" }

    /// Works until `end` (seconds since 1970); the cutting stops at `cutsEnd`, before it.
    func run(cutsEnd: Double, end: Double) -> Report {
        var report = Report()
        var random = SeededGenerator(seed: seed)
        let store: PostgreSQLSecureItemStore
        do {
            store = try PostgreSQLSecureItemStore.open(
                uri: uri + "?application_name=" + name, keySource: .key(SecretBytes(key)))
            report.opened = true
        } catch {
            report.errors["open: \(StoreReading.kind(of: error))", default: 0] += 1
            return report
        }
        var sequence = 0
        while Date().timeIntervalSince1970 < end {
            sequence += 1
            let began = Date()
            let afterCuts = began.timeIntervalSince1970 > cutsEnd
            let account = "cut-\(index)-\(sequence)"
            let reading = !report.acknowledged.isEmpty && random.chance(0.4)
            var succeeded = true
            if reading, let (readAccount, value) = report.acknowledged.randomElement(using: &random) {
                do {
                    let found = try store.findString(.genericPassword(service: "cut", account: readAccount))
                    if found != value { report.wrongReads.append("\(readAccount): another value") }
                } catch .itemNotFound {
                    report.wrongReads.append("\(readAccount): not found")
                } catch {
                    succeeded = false
                    report.errors["read: \(StoreReading.kind(of: error))", default: 0] += 1
                }
            } else {
                let value = "v\(sequence)-" + random.hex(12)
                do {
                    try store.add(.genericPassword(service: "cut", account: account), data: SecretBytes(utf8: value))
                    report.acknowledged[account] = value
                } catch {
                    succeeded = false
                    if "\(error)".contains("may or may not") {
                        report.uncertain[account] = value
                        report.errors["add: commit outcome unknown", default: 0] += 1
                    } else {
                        report.failed.append(account)
                        report.errors["add: \(StoreReading.kind(of: error))", default: 0] += 1
                    }
                }
            }
            let seconds = Date().timeIntervalSince(began)
            report.calls += 1
            report.slowest = max(report.slowest, seconds)
            if seconds > Self.bound { report.hangs += 1 }
            if !succeeded { report.failedCalls += 1 }
            if afterCuts {
                report.callsAfterCuts += 1
                if !succeeded { report.failedAfterCuts += 1 }
            }
        }
        return report
    }
}
