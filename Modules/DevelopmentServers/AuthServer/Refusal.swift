/// Why the server refused a token or a request, phrased for an OAuth `error_description`; it never
/// quotes a token or a password.
struct Refusal: Error, Equatable {
    /// The human-readable reason.
    let reason: String

    /// A refusal for `reason`.
    init(_ reason: String) {
        self.reason = reason
    }
}
