import Domain

/// Checks an `expires_in` value: positive and at most a year. A negative, zero or absurd lifetime
/// means the server or something between is broken, so the reply is refused rather than trusted.
enum TokenLifetime {
    /// The longest access-token lifetime accepted: one year.
    static let maximumSeconds: Double = 366 * 24 * 3600

    /// `seconds` when sane, `nil` when absent.
    static func validated(_ seconds: Double?) throws(AuthenticationError) -> Double? {
        guard let seconds else { return nil }
        guard seconds.isFinite, seconds > 0 else {
            throw .invalidResponse("expires_in must be a positive number of seconds")
        }
        guard seconds <= maximumSeconds else { throw .invalidResponse("expires_in is absurdly long (over a year)") }
        return seconds
    }
}
