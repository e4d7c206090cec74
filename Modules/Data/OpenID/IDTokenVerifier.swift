import Domain
public import Foundation

/// Validates ID tokens against an issuer's key set fetched from its `jwks_uri`, fetching the set
/// again when a token names a key the set lacks (the issuer rotated its keys): once per token at most,
/// and at most once per ``refetchInterval`` in all, so a stream of forged key ids (which anyone may post
/// to a back-channel logout endpoint) can make the client fetch the set no more than that.
public actor IDTokenVerifier {
    /// The least time between two fetches made for an unknown key id.
    public let refetchInterval: Duration
    private let jwksURI: EndpointURL
    private let client: any HTTPClient
    private let validator: IDTokenValidator
    private var keys: [JSONWebKey]?
    private var lastRefetch: ContinuousClock.Instant?

    /// Creates a verifier for the key set at `jwksURI`, fetched through `clients`, fetched again for an
    /// unknown key id at most once per `refetchInterval`.
    public init(
        jwksURI: EndpointURL, clients: HTTPClientForOrigin, verifier: any JWSSignatureVerifier,
        refetchInterval: Duration = .seconds(60)
    ) {
        self.jwksURI = jwksURI
        self.refetchInterval = refetchInterval
        client = clients(jwksURI.origin)
        validator = IDTokenValidator(verifier: verifier)
    }

    /// The claims of `token` once its signature and claims hold.
    /// - Throws: ``IDTokenError``.
    public func validate(_ token: String, expecting expected: IDTokenExpectations, now: Date) async throws(IDTokenError)
        -> IDTokenClaims
    {
        try validator.validate(token, keys: try await keys(for: token), expecting: expected, now: now)
    }

    /// The payload of a JWS the issuer signed (a back-channel logout token), once its signature verifies
    /// against the key set; its claims are for the caller to check.
    /// - Throws: ``IDTokenError`` (`malformed`, `algorithmNotAllowed`, `unknownKey`, `badSignature`,
    ///   `keySetUnavailable`).
    public func verifiedPayload(of token: String) async throws(IDTokenError) -> Data {
        try validator.verifiedPayload(of: token, keys: try await keys(for: token))
    }

    /// The key set to check `token` against: the cached one, or fetched again once when the token names
    /// a key it lacks (a set fetched for this very token is not fetched again, nor one within
    /// ``refetchInterval`` of the last such fetch).
    private func keys(for token: String) async throws(IDTokenError) -> [JSONWebKey] {
        let cached = keys
        let current = try await keySet(refetch: false)
        let now = ContinuousClock.now
        if cached != nil, try !validator.hasKey(for: token, in: current),
            lastRefetch.map({ now - $0 >= refetchInterval }) ?? true
        {
            lastRefetch = now
            return try await keySet(refetch: true)
        }
        return current
    }

    private func keySet(refetch: Bool) async throws(IDTokenError) -> [JSONWebKey] {
        if !refetch, let keys { return keys }
        var headers = HTTPHeaders()
        headers["Accept"] = "application/json"
        let response: HTTPResponse
        do {
            response = try await client.send(HTTPRequest(method: "GET", path: jwksURI.path, headers: headers))
        } catch {
            throw .keySetUnavailable(error.description)
        }
        guard response.status == 200 else { throw .keySetUnavailable("HTTP \(response.status)") }
        let set: JSONWebKeySetDTO
        do {
            set = try ResponseBody.decode(JSONWebKeySetDTO.self, from: response)
        } catch {
            throw .keySetUnavailable(error.description)
        }
        let fetched = set.keys.compactMap(\.key)
        keys = fetched
        return fetched
    }
}
