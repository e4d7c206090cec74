/// The services under which the gateway keeps items of its own in the store (its login-state key, the
/// logout tokens it has seen). Its sessions are the session repository's, under that repository's
/// services.
public enum GatewayStoreItems {
    /// The service of the gateway's own items; the others extend it (`hardtack.gateway.logout-token`).
    public static let service = "hardtack.gateway"

    /// The account of the gateway's login-state key, which exists once a gateway has started on the store:
    /// what `/healthz` reads, so that its probe is a found item (a "not found" must check every row).
    public static let loginKeyAccount = "login-state-key"

    /// Whether `service` is one of the gateway's own.
    public static func owns(service: String) -> Bool {
        service == Self.service || service.hasPrefix(Self.service + ".")
    }
}
