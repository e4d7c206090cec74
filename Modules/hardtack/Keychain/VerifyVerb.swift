import CommandLineKit
import Composition
import Data
import Foundation
import StoreCore

/// `verify`: decrypt and check every item and run the database's structural check; the counts are
/// printed whatever is found.
struct VerifyVerb: HardtackCommand {
    static let configuration = KeychainVerbs.configuration(
        VerifyVerb.self, name: "verify",
        abstract: "Check every item and the database file; exit 65 if anything is damaged.",
        discussion: [
            "Prints counts, never a secret: sound items, damaged items, and the database's own check "
                + "(\"ok\" when sound), also when the store is damaged (then it exits 65). When the store cannot be "
                + "read far enough to count its items, sound is 0 and damaged is 1 (the store itself), and the "
                + "problem is said.",
            "Each damaged item whose row can still be read is named on a line of its own: its row, its class and, "
                + "when they still decrypt, its service or server, account and label, with what is wrong.",
            "JSON: {\"store\": PATH, \"sound\": N, \"damaged\": N, \"databaseCheck\": TEXT, \"complete\": BOOL, "
                + "\"problem\": TEXT or null, \"damage\": {\"pages\": N, \"rows\": N, \"rowsDigest\": BOOL, "
                + "\"header\": BOOL, \"headerProblem\": TEXT or null (which copy of the header is damaged), \"file\": TEXT or null (an empty or cut-short store file)}, \"damagedItems\": [{\"row\", \"class\", \"problem\", \"attributes\"}]}; "
                + "complete is false when the items could not be counted.",
            "With --rollback-anchor FILE (or $HARDTACK_ROLLBACK_ANCHOR) naming a file that does not exist, verify "
                + "--new-rollback-anchor makes it: the store is anchored as it is now, and from then on an older copy "
                + "of it is damage. A store older than its anchor is exit 65, and not counted as salvage would.",
        ])

    /// `--json`.
    @Flag("--json", help: "Print one JSON object instead of text.") var json: Bool
    /// `--new-rollback-anchor`.
    @Flag(
        "--new-rollback-anchor",
        help: "Make the rollback anchor that --rollback-anchor names when it does not exist, anchoring the store as "
            + "it is now (after a restore from a backup, or for a store that never had one).")
    var newAnchor: Bool
    /// The store.
    @OptionGroup(title: KeychainVerbs.globalTitle) var store: StoreArguments

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        let location = try store.configuration(context).displayLocation
        var health: StoreHealth
        var problem: String?
        // Whether the items could be counted at all: by the store, or else as salvage reads it.
        var counted = true
        do throws(CommandFailure) {
            // The one command that makes a missing rollback anchor, when told to: it anchors the store it checks.
            let anchor = newAnchor ? try store.configuration(context).options.rollbackAnchor?.path : nil
            let anchorWasThere = anchor.map { FileManager.default.fileExists(atPath: $0) } ?? true
            let handle = try await store.openExisting(context, onlyReads: true, makingAnchor: newAnchor)
            if let anchor, !anchorWasThere, FileManager.default.fileExists(atPath: anchor) {
                Console.error("made the rollback anchor \(anchor): the store is anchored as it is now")
            }
            do throws(SecureStoreError) {
                health = try await handle.verify()
            } catch {
                throw .store(error)
            }
        } catch .store(.integrityFailure(let what)) where RollbackAnchorFile.isAnchorFailure(what) {
            // The store against its anchor (older than it, or the anchor missing or damaged): not damage
            // to count as salvage would, which would take the older copy for the store.
            throw .store(.integrityFailure(what))
        } catch .store(.integrityFailure(let what)) {
            // Damage that stops the database from opening or reading the store through: counted as salvage
            // reads the store, page by page, else a report
            // with the store itself as the damaged part.
            problem = Advice.message(SecureStoreError.integrityFailure(what))
            let configuration = try store.configuration(context, onlyReads: true)
            if let salvaged = await StoreSalvager.health(configuration) {
                health = salvaged
            } else {
                counted = false
                let kinds = await StoreSalvager.fileDamage(configuration)
                health = StoreHealth(
                    soundItems: 0, damagedItems: 1, databaseCheck: nil, kinds: kinds, countedBySalvage: true)
            }
        }
        // A file cut short may still open (its missing pages unread): its length is damage of its own.
        if health.kinds.cutShort == nil,
            let cut = await StoreSalvager.fileDamage(try store.configuration(context, onlyReads: true)).cutShort
        {
            var kinds = health.kinds
            kinds.cutShort = cut
            health = StoreHealth(
                soundItems: health.soundItems, damagedItems: health.damagedItems, databaseCheck: health.databaseCheck,
                damaged: health.damaged, kinds: kinds, countedBySalvage: health.countedBySalvage)
        }
        let check = Self.databaseCheck(health, counted: counted)
        report(health, location: location, problem: problem, check: check, counted: counted)
        guard health.isSound, problem == nil else {
            if let problem, health.soundItems > 0 {
                throw .finding(
                    .damaged,
                    "\(problem) Counted as salvage reads the store: \(health.soundItems) items can be copied into a "
                        + "new store with `hardtack keychain salvage --to NEW`.")
            }
            throw .finding(
                .damaged,
                problem
                    ?? "the store is damaged (\(health.damagedItems) damaged items; database check: "
                    + "\(check)). Restore it from a backup, or copy every item that still authenticates into a new store with "
                    + "`hardtack keychain salvage --to NEW`.")
        }
    }

    private func report(_ health: StoreHealth, location: String, problem: String?, check: String, counted: Bool) {
        if json {
            let document = JSONValue.object([
                ("store", .string(location)), ("sound", .count(health.soundItems)),
                ("damaged", .count(health.damagedItems)), ("databaseCheck", .string(check)),
                ("complete", .bool(problem == nil)), ("problem", problem.map(JSONValue.string) ?? .null),
                ("countedBy", .string(health.countedBySalvage ? "salvage" : "store")),
                (
                    "damage",
                    .object([
                        ("pages", .count(health.kinds.pages)), ("rows", .count(health.kinds.rows)),
                        ("rowsDigest", .bool(health.kinds.rowsDigest)), ("header", .bool(health.kinds.header)),
                        ("headerProblem", health.kinds.headerProblem.map(JSONValue.string) ?? .null),
                        ("file", health.kinds.cutShort.map { .string(DamageWords.shortfall($0)) } ?? .null),
                    ])
                ),
                ("damagedItems", .array(health.damaged.map(DamageWords.json))),
            ])
            Console.print(document.rendered())
        } else {
            Console.print(
                """
                store: \(location)
                sound items: \(health.soundItems)
                damaged items: \(health.damagedItems)\(Self.countNote(problem: problem, counted: counted))
                damage: \(Self.kinds(health.kinds))
                database check: \(check)
                """)
            for item in health.damaged { Console.print("damaged: " + DamageWords.line(item)) }
        }
    }

    /// The database's check in words: its own, or why it did not run.
    private static func databaseCheck(_ health: StoreHealth, counted: Bool) -> String {
        health.databaseCheck
            ?? (counted ? "not run (the database could not read the store through; counted as salvage reads it)" : "not run")
    }

    /// What follows the damaged count when the store could not be opened.
    private static func countNote(problem: String?, counted: Bool) -> String {
        guard problem != nil else { return "" }
        return counted
            ? " (counted as salvage reads the store: the database could not read it through)"
            : " (the store itself: its items could not be counted)"
    }

    /// The kinds of damage, in words: `none`, or `2 pages failing their checksum, 1 row, the rows digest`.
    private static func kinds(_ kinds: StoreHealth.DamageKinds) -> String {
        var parts: [String] = kinds.cutShort.map { [DamageWords.shortfall($0)] } ?? []
        if kinds.pages > 0 { parts.append("\(kinds.pages) page\(kinds.pages == 1 ? "" : "s") failing its checksum") }
        if kinds.rows > 0 { parts.append("\(kinds.rows) row\(kinds.rows == 1 ? "" : "s")") }
        if kinds.rowsDigest { parts.append("the rows digest (the rows do not match it)") }
        if kinds.header { parts.append("the store header" + (kinds.headerProblem.map { " (\($0))" } ?? "")) }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }
}
