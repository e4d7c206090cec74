import Data
import Gateway

/// The services whose items the keychain verbs must not write or delete: a session's (written only by
/// signing in, refreshing and signing out, which revoke what they replace and respect a refresh in
/// flight) and the gateway's own. An overwrite or a delete there would strand a refresh token at the
/// server, or break a refresh another process has claimed.
enum ReservedServices {
    /// Why `service` may not be written or deleted by hand, or `nil` when it may.
    static func refusal(_ service: String) -> String? {
        if let account = SecureStoreSessionRepository.account(ofService: service),
            let sessionID = SessionCookie.sessionID(of: account)
        {
            return "the service \(service) holds a gateway session, which only `hardtack gateway` writes; end it "
                + "with `hardtack gateway revoke --session \(sessionID)`; nothing was changed"
        }
        if SecureStoreSessionRepository.keepsSessions(inService: service) {
            return "the service \(service) holds a signed-in session, which only signin, refresh and signout write: "
                + "an edit here would skip the revocation at the server and any refresh in flight. To remove it, run "
                + "`hardtack signout` (with --account NAME for another account than the default); nothing was changed"
        }
        if GatewayStoreItems.owns(service: service) {
            return "the service \(service) holds the gateway's own items (its keys and the logout tokens it has "
                + "seen), which only `hardtack gateway` writes; a gateway session ends with `hardtack gateway revoke "
                + "--session ID`; nothing was changed"
        }
        return nil
    }

    /// Why items with these attributes may not be written or deleted by hand, or `nil` when they may.
    static func refusal(_ attributes: ItemAttributes) -> String? {
        attributes.string(.service).flatMap(refusal)
    }
}
