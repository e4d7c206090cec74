/// An OpenID Connect discovery document or an RFC 8414 authorization server metadata document: the
/// fields this client reads.
struct ProviderMetadataDTO: Decodable {
    let issuer: String
    let authorizationEndpoint: String?
    let tokenEndpoint: String?
    let jwksURI: String?
    let userinfoEndpoint: String?
    let revocationEndpoint: String?
    let deviceAuthorizationEndpoint: String?
    let codeChallengeMethodsSupported: [String]?
    let idTokenSigningAlgValuesSupported: [String]?
    let authorizationResponseIssParameterSupported: Bool?
    let tokenEndpointAuthMethodsSupported: [String]?
    let endSessionEndpoint: String?
    let backchannelLogoutSupported: Bool?
    let backchannelLogoutSessionSupported: Bool?
    let scopesSupported: [String]?

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case jwksURI = "jwks_uri"
        case userinfoEndpoint = "userinfo_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case endSessionEndpoint = "end_session_endpoint"
        case backchannelLogoutSupported = "backchannel_logout_supported"
        case backchannelLogoutSessionSupported = "backchannel_logout_session_supported"
        case scopesSupported = "scopes_supported"
    }
}
