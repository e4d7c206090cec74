public import Domain
import Foundation

extension ProviderMetadata {
    /// What a stored session remembers of its issuer, to keep with the session.
    public func sessionIssuer(clientID: String) -> SessionIssuer {
        SessionIssuer(
            issuer: issuer, clientID: clientID, tokenEndpoint: tokenEndpoint.absolute.absoluteString,
            revocationEndpoint: revocationEndpoint?.absolute.absoluteString,
            userinfoEndpoint: userinfoEndpoint?.absolute.absoluteString)
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
            codeChallengeMethods: [], sendsIssuerInAuthorizationResponse: false)
    }
}
