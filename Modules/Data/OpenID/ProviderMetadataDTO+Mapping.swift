import Domain
import Foundation

extension ProviderMetadataDTO {
    /// The metadata, once the document's issuer equals `expectedIssuer` exactly and every endpoint
    /// given is acceptable.
    /// - Throws: ``AuthenticationError/invalidResponse(_:)`` naming the field at fault.
    func metadata(expectedIssuer: String) throws(AuthenticationError) -> ProviderMetadata {
        guard issuer == expectedIssuer else {
            throw .invalidResponse("the discovery document names another issuer than the one asked for")
        }
        guard let tokenEndpoint else { throw .invalidResponse("the discovery document has no token_endpoint") }
        var metadata = ProviderMetadata(
            issuer: issuer,
            authorizationEndpoint: try Self.endpoint(authorizationEndpoint, "authorization_endpoint"),
            tokenEndpoint: try Self.endpoint(tokenEndpoint, "token_endpoint")!,
            jwksURI: try Self.endpoint(jwksURI, "jwks_uri"),
            userinfoEndpoint: try Self.endpoint(userinfoEndpoint, "userinfo_endpoint"),
            revocationEndpoint: try Self.endpoint(revocationEndpoint, "revocation_endpoint"),
            deviceAuthorizationEndpoint: try Self.endpoint(deviceAuthorizationEndpoint, "device_authorization_endpoint"),
            codeChallengeMethods: codeChallengeMethodsSupported ?? [],
            sendsIssuerInAuthorizationResponse: authorizationResponseIssParameterSupported ?? false,
            tokenEndpointAuthMethods: tokenEndpointAuthMethodsSupported)
        metadata.endSessionEndpoint = try Self.endpoint(endSessionEndpoint, "end_session_endpoint")
        metadata.backchannelLogoutSupported = backchannelLogoutSupported ?? false
        metadata.backchannelLogoutSessionSupported = backchannelLogoutSessionSupported ?? false
        metadata.scopesSupported = scopesSupported
        return metadata
    }

    private static func endpoint(_ text: String?, _ field: String) throws(AuthenticationError) -> EndpointURL? {
        guard let text else { return nil }
        guard let url = URL(string: text), let endpoint = EndpointURL(url) else {
            throw .invalidResponse("the discovery document's \(field) is not an https URL")
        }
        return endpoint
    }
}
