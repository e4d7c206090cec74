public import Domain
public import Foundation

/// Learns an issuer's endpoints: OpenID Connect discovery (`{issuer}/.well-known/openid-configuration`),
/// else RFC 8414 (`{origin}/.well-known/oauth-authorization-server{issuer path}`). The document's
/// `issuer` must equal the one asked for, character for character (OpenID Connect Discovery §4.3,
/// RFC 8414 §3.3), so a document cannot send the client to someone else's endpoints.
public struct OpenIDDiscovery: Sendable {
    private let clients: HTTPClientForOrigin

    /// Creates discovery fetching through the clients `clients` makes.
    public init(clients: @escaping HTTPClientForOrigin) {
        self.clients = clients
    }

    /// The metadata of `issuer`.
    /// - Throws: ``AuthenticationError/invalidResponse(_:)`` for an unacceptable issuer URL or document,
    ///   ``AuthenticationError/temporarilyUnavailable(_:)`` for transport failures and 5xx,
    ///   ``AuthenticationError/rejected(status:reason:)`` when neither document exists.
    public func metadata(issuer: URL) async throws(AuthenticationError) -> ProviderMetadata {
        guard let endpoint = EndpointURL(issuer), !endpoint.path.contains("?") else {
            throw .invalidResponse("the issuer must be an https URL (http only to a loopback address) without query")
        }
        let issuerText = issuer.absoluteString
        var issuerPath = endpoint.path
        while issuerPath.hasSuffix("/") { issuerPath.removeLast() }
        let client = clients(endpoint.origin)
        let openID = try await fetch(client, issuerPath + "/.well-known/openid-configuration")
        let response: HTTPResponse
        if openID.status == 200 {
            response = openID
        } else {
            response = try await fetch(client, "/.well-known/oauth-authorization-server" + issuerPath)
            guard response.status == 200 else {
                throw .rejected(status: response.status, reason: "no OpenID Connect or RFC 8414 discovery document")
            }
        }
        return try ResponseBody.decode(ProviderMetadataDTO.self, from: response).metadata(expectedIssuer: issuerText)
    }

    private func fetch(_ client: any HTTPClient, _ path: String) async throws(AuthenticationError) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers["Accept"] = "application/json"
        let response = try await AuthServerExchange(http: client, clientID: "").send(
            HTTPRequest(method: "GET", path: path, headers: headers))
        switch response.status {
        case 500...599, 429, 408: throw .temporarilyUnavailable("discovery answered HTTP \(response.status)")
        default: return response
        }
    }
}
