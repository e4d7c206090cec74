import Domain
public import Foundation

/// Validates ID tokens against an issuer's key set fetched from its `jwks_uri`, fetching the set
/// again once when a token names a key the set lacks (the issuer rotated its keys), never more per
/// token, so a stream of forged key ids cannot make the client hammer the issuer.
public actor IDTokenVerifier {
    private let jwksURI: EndpointURL
    private let client: any HTTPClient
    private let validator: IDTokenValidator
    private var keys: [JSONWebKey]?

    /// Creates a verifier for the key set at `jwksURI`, fetched through `clients`.
    public init(jwksURI: EndpointURL, clients: HTTPClientForOrigin, verifier: any JWSSignatureVerifier) {
        self.jwksURI = jwksURI
        client = clients(jwksURI.origin)
        validator = IDTokenValidator(verifier: verifier)
    }

    /// The claims of `token` once its signature and claims hold.
    /// - Throws: ``IDTokenError``.
    public func validate(_ token: String, expecting expected: IDTokenExpectations, now: Date) async throws(IDTokenError)
        -> IDTokenClaims
    {
        let cached = keys
        var current = try await keySet(refetch: false)
        // A set fetched for this very token is not fetched again.
        if cached != nil, try !validator.hasKey(for: token, in: current) {
            current = try await keySet(refetch: true)
        }
        return try validator.validate(token, keys: current, expecting: expected, now: now)
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
