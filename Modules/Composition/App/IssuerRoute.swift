import Data
import Domain
import Foundation
import OpenSSLCrypto

/// The gateway and profile API for a stored session that remembers its issuer's endpoints.
struct IssuerRoute {
    let gateway: OpenIDAuthenticationGateway
    let profile: ProfileAPI

    /// The route for `stored`, or `nil` when it remembers no issuer (or endpoints that are not acceptable,
    /// in which case the contract's gateway is used, as for any other session).
    /// `clients` reaches the issuer's origins (the embedded server's transport in the demo).
    init?(
        stored: Session?, now: @escaping @Sendable () -> Date,
        clients: @escaping HTTPClientForOrigin = { AppContainer.remoteHTTPClient($0) }
    ) {
        guard let origin = stored?.issuer, let metadata = ProviderMetadata(remembered: origin) else { return nil }
        gateway = OpenIDAuthenticationGateway(
            metadata: metadata, clientID: origin.clientID, clientSecret: origin.clientSecret,
            clientAuthMethod: origin.clientAuthMethod.flatMap(ClientAuthentication.Method.init(rawValue:)), clients: clients, signatures: OpenSSLSignatureVerifier(),
            now: now)
        let userinfo = metadata.userinfoEndpoint
        profile = userinfo.map { ProfileAPI(http: clients($0.origin), path: $0.path) } ?? ProfileAPI(
            http: clients(metadata.tokenEndpoint.origin))
    }
}
