public import Domain

/// The redirect that ends the browser part of the code flow (RFC 6749 §4.1.2), checked before its
/// code is used: `iss` (RFC 9207) equal to the issuer when present, and present when the issuer says it
/// sends it; `state` equal to the one sent (constant time); then an error or exactly one code.
public struct AuthorizationRedirect: Sendable {
    /// The query of the redirect's request target, as received (percent-encoded, without `?`).
    public let query: String

    /// Wraps the query of a redirect.
    public init(query: String) {
        self.query = query
    }

    /// The authorization code once every check holds.
    /// - Throws: ``AuthenticationError/invalidCredentials(_:)`` for `access_denied` (the user refused),
    ///   ``AuthenticationError/invalidResponse(_:)`` for a wrong or missing `state` or `iss`, a repeated
    ///   parameter or no code, ``AuthenticationError/rejected(status:reason:)`` for another error.
    public func code(for request: AuthorizationRequest, issuer: String, issuerSendsIss: Bool)
        throws(AuthenticationError) -> SecretBytes
    {
        let fields = try parameters()
        if let iss = fields["iss"] {
            guard iss == issuer else { throw .invalidResponse("the redirect's `iss` is not the issuer signed in with") }
        } else if issuerSendsIss {
            throw .invalidResponse("the redirect has no `iss`, which the issuer says it always sends")
        }
        guard let state = fields["state"], SecretBytes(utf8: state).constantTimeEquals(request.state) else {
            throw .invalidResponse("the redirect's `state` does not match the request (a forged or stale redirect)")
        }
        if let error = fields["error"] {
            if error == "access_denied" { throw .invalidCredentials("the sign-in was refused in the browser") }
            throw .rejected(status: 400, reason: "the authorization server answered " + ServerText.printable(error, limit: 40))
        }
        guard let code = fields["code"], !code.isEmpty else { throw .invalidResponse("the redirect has no code") }
        return SecretBytes(utf8: code)
    }

    /// The decoded parameters; a name given twice is refused (RFC 6749 §3.1).
    private func parameters() throws(AuthenticationError) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = String(parts[0]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding,
                let value = (parts.count > 1 ? String(parts[1]) : "").replacingOccurrences(of: "+", with: " ")
                    .removingPercentEncoding
            else { throw .invalidResponse("the redirect's query is not well-formed") }
            guard fields.updateValue(value, forKey: name) == nil else {
                throw .invalidResponse("the redirect repeats a parameter")
            }
        }
        return fields
    }
}
