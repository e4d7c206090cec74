public import Domain
import Foundation

extension ProviderMetadata {
    /// What a stored session remembers of its issuer, to keep with the session: the endpoints, and the
    /// client with its secret and the way it sends it, if it has one.
    public func sessionIssuer(client: ClientAuthentication) -> SessionIssuer {
        SessionIssuer(
            issuer: issuer, clientID: client.clientID, tokenEndpoint: tokenEndpoint.absolute.absoluteString,
            revocationEndpoint: revocationEndpoint?.absolute.absoluteString,
            userinfoEndpoint: userinfoEndpoint?.absolute.absoluteString, clientSecret: client.secret,
            clientAuthMethod: client.method?.rawValue)
    }

    /// The endpoints a stored session remembers, checked again as discovery checks them (so a record
    /// edited by hand cannot point refresh tokens at plain HTTP), or `nil` when one is not acceptable.
    public init?(remembered origin: SessionIssuer) {
        func endpoint(_ text: String?) -> EndpointURL?? {
            guard let text else { return .some(nil) }
            guard let url = URL(string: text), let endpoint = EndpointURL(url) else { return nil }
            return .some(endpoint)
        }
        guard let token = endpoint(origin.tokenEndpoint), let tokenEndpoint = token,
            let revocation = endpoint(origin.revocationEndpoint), let userinfo = endpoint(origin.userinfoEndpoint)
        else { return nil }
        self.init(
            issuer: origin.issuer, authorizationEndpoint: nil, tokenEndpoint: tokenEndpoint, jwksURI: nil,
            userinfoEndpoint: userinfo, revocationEndpoint: revocation, deviceAuthorizationEndpoint: nil,
            codeChallengeMethods: [], sendsIssuerInAuthorizationResponse: false, tokenEndpointAuthMethods: nil)
    }
}
