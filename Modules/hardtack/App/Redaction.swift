import Domain
import Foundation

/// How tokens appear in output: never the value, only its length and a short fingerprint that is
/// stable within one run (so a reader sees a token change) and means nothing outside it.
enum Redaction {
    private static let seed = UInt64.random(in: .min ... .max)

    /// `•••• (612 chars, #3fa2)`.
    static func token(_ secret: SecretBytes) -> String {
        var hasher = Hasher()
        hasher.combine(seed)
        secret.withUnsafeBytes { hasher.combine(bytes: $0) }
        let fingerprint = String(UInt16(truncatingIfNeeded: hasher.finalize()), radix: 16)
        return "•••• (\(secret.count) chars, #\(String(repeating: "0", count: 4 - fingerprint.count) + fingerprint))"
    }

    /// Text that came from a server (a user's name), without control characters that could drive
    /// the terminal, and bounded.
    static func printable(_ text: String) -> String {
        let kept = text.unicodeScalars.filter { ![.control, .format].contains($0.properties.generalCategory) }
        let cleaned = String(String.UnicodeScalarView(kept))
        return cleaned.count > 80 ? String(cleaned.prefix(80)) + "…" : cleaned
    }

    /// A user as output shows them: the name, else the id, cleaned.
    static func user(_ user: User) -> String {
        printable(user.name.isEmpty ? user.id : user.name)
    }

    /// A duration in words: `4 min 59 s`, `12 s`.
    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        if whole >= 3600 { return "\(whole / 3600) h \(whole % 3600 / 60) min" }
        if whole >= 60 { return "\(whole / 60) min \(whole % 60) s" }
        return "\(max(whole, 0)) s"
    }

    /// What a launch decision means, in words.
    static func decision(_ decision: LaunchDecision) -> String {
        switch decision {
        case .signedIn(let user, let left):
            "signed in\(user.map { " as \(Redaction.user($0))" } ?? ""); access token "
                + (left.map { "valid for \(duration($0))" } ?? "expiry unknown (a 401 will tell)") + " → main flow"
        case .signedInNeedsRefresh(let user):
            "signed in\(user.map { " as \(Redaction.user($0))" } ?? ""); access token expired, "
                + "refresh before the first call → main flow"
        case .signedOut:
            "signed out → sign-in flow"
        case .storeUnavailable(let reason):
            "store unavailable (\(reason)); the user is NOT signed out → ask to unlock or retry"
        case .storeDamaged(let reason):
            "store damaged (\(reason)); the user is NOT signed out → run `hardtack keychain salvage --to NEW` "
                + "to copy the sound items into a new store"
        }
    }
}
