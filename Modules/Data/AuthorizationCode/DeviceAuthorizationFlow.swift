public import Domain
public import Foundation

/// The device authorization grant (RFC 8628): asks the issuer for a device code and a user code, then
/// polls the token endpoint at the server's interval, 5 s more after each `slow_down`, until the user
/// approves, refuses (`access_denied`, a refusal) or the code expires. Sleeping and time are injected,
/// so tests run it without waiting.
public struct DeviceAuthorizationFlow: Sendable {
    private let metadata: ProviderMetadata
    private let clientID: String
    private let clients: HTTPClientForOrigin
    private let gateway: OpenIDAuthenticationGateway
    private let sleep: @Sendable (TimeInterval) async throws -> Void
    private let now: @Sendable () -> Date

    /// Creates the flow over `gateway` (which exchanges the approved device code).
    public init(
        metadata: ProviderMetadata, clientID: String, clients: @escaping HTTPClientForOrigin,
        gateway: OpenIDAuthenticationGateway, sleep: @escaping @Sendable (TimeInterval) async throws -> Void,
        now: @escaping @Sendable () -> Date
    ) {
        self.metadata = metadata
        self.clientID = clientID
        self.clients = clients
        self.gateway = gateway
        self.sleep = sleep
        self.now = now
    }

    /// Asks for a device code.
    /// - Throws: ``AuthenticationError/unsupported(_:)`` when the issuer has no device endpoint, and
    ///   what a sign-in reply may throw.
    public func start(scope: String) async throws(AuthenticationError) -> DeviceAuthorization {
        guard let endpoint = metadata.deviceAuthorizationEndpoint else {
            throw .unsupported(Self.noDeviceEndpoint)
        }
        let exchange = AuthServerExchange(http: clients(endpoint.origin), clientID: clientID)
        let response = try await exchange.postForm(endpoint.path, [("client_id", clientID), ("scope", scope)])
        guard response.status == 200 else { throw exchange.signInFailure(response) }
        let reply = try ResponseBody.decode(DeviceAuthorizationDTO.self, from: response)
        guard !reply.deviceCode.isEmpty, !reply.userCode.isEmpty, reply.expiresIn > 0, reply.expiresIn <= 86_400 else {
            throw .invalidResponse("the device authorization reply is incomplete")
        }
        guard Self.isShowable(reply.verificationURI) else {
            throw .invalidResponse("the verification_uri is not an https URL")
        }
        let complete = reply.verificationURIComplete.flatMap { Self.isShowable($0) ? $0 : nil }
        return DeviceAuthorization(
            deviceCode: SecretBytes(utf8: reply.deviceCode), userCode: ServerText.printable(reply.userCode, limit: 40),
            verificationURI: reply.verificationURI, verificationURIComplete: complete,
            expiresAt: now().addingTimeInterval(reply.expiresIn), interval: max(reply.interval ?? 5, 1))
    }

    /// What the flow says of an issuer with no device authorization endpoint.
    public static let noDeviceEndpoint = "the issuer has no device authorization endpoint"

    /// Whether `text` is an acceptable URI to print for the user: an `https` (or loopback `http`) URL of
    /// plain characters. A URI is printed as the server sent it, so one with a control character (which
    /// could drive the terminal), a space or an unbounded length is refused, not cleaned up; Foundation's
    /// `URL(string:)` alone would accept it, percent-encoding what it cannot hold.
    static func isShowable(_ text: String) -> Bool {
        guard text.utf8.count <= 2048,
            text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }),
            let url = URL(string: text)
        else { return false }
        return EndpointURL(url) != nil
    }

    /// Polls until the user decides or the code expires.
    /// - Throws: ``AuthenticationError/invalidCredentials(_:)`` on `access_denied`,
    ///   ``AuthenticationError/rejected(status:reason:)`` on `expired_token` or the deadline,
    ///   ``AuthenticationError/unsupported(_:)`` when cancelled.
    public func waitForApproval(_ authorization: DeviceAuthorization) async throws(AuthenticationError) -> Session {
        var interval = authorization.interval
        while true {
            guard now().addingTimeInterval(interval) < authorization.expiresAt else {
                throw .rejected(status: 400, reason: "expired_token: the device code expired before it was approved")
            }
            do {
                try await sleep(interval)
            } catch {
                throw .unsupported("the sign-in was cancelled")
            }
            switch try await gateway.poll(deviceCode: authorization.deviceCode) {
            case .pending: continue
            case .slowDown: interval += 5
            case .session(let session): return session
            }
        }
    }
}
