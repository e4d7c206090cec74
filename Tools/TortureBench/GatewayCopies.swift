import Foundation

/// After scenario 17's run: the gateways' revocation copies against their sessions, as
/// `hardtack keychain dump --json` lists the store's items (attributes only, never a token). Every session
/// has its copy (written in the same transaction), and once a sweep has passed no copy is left whose
/// session ended: each was revoked at the issuer (or is still waiting for it) and removed.
struct GatewayCopies {
    let context: ScenarioContext
    let storeFile: String
    let keyFile: String

    static let service = "hardtack.gateway.revocation-copy"
    static let sessionServicePrefix = "hardtack.session/gateway/"

    /// The session ids that have a session record, and those that have a copy; `nil` when the store
    /// cannot be listed.
    func read() -> (sessions: Set<String>, copies: Set<String>)? {
        let listed = context.runner.run(
            context.hardtack,
            ["keychain", "dump", "--json", "--store-file", storeFile, "--key-file", keyFile].map { Array($0.utf8) })
        guard listed.status == 0,
            let object = try? JSONSerialization.jsonObject(with: Data(listed.stdout)) as? [String: Any],
            let items = object["items"] as? [[String: Any]]
        else {
            context.say("keychain dump failed: \(listed.err.suffix(300))")
            return nil
        }
        var sessions = Set<String>()
        var copies = Set<String>()
        for item in items {
            guard let attributes = item["attributes"] as? [String: Any], let service = attributes["service"] as? String,
                let account = attributes["account"] as? String
            else { continue }
            if service == Self.service {
                copies.insert(account)
            } else if service.hasPrefix(Self.sessionServicePrefix), account == "session" {
                sessions.insert(String(service.dropFirst(Self.sessionServicePrefix.count)))
            }
        }
        return (sessions, copies)
    }

    /// Waits up to `seconds` for the copies to be exactly the sessions' (the gateways sweep every 5 s), and
    /// checks it; says what it found.
    func check(within seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        var last: (sessions: Set<String>, copies: Set<String>)?
        while Date() < deadline {
            last = read()
            if let last, last.sessions == last.copies { break }
            usleep(500_000)
        }
        guard let last else {
            context.fail("the store could not be listed to compare revocation copies with sessions")
            return
        }
        let missing = last.sessions.subtracting(last.copies).count
        let orphaned = last.copies.subtracting(last.sessions).count
        context.say(
            "revocation copies: \(last.copies.count) for \(last.sessions.count) sessions; sessions without one "
                + "\(missing), copies of ended sessions left \(orphaned)")
        context.check(missing == 0, "\(missing) sessions have no revocation copy")
        context.check(orphaned == 0, "\(orphaned) copies of ended sessions were not revoked within \(Int(seconds)) s")
    }
}
