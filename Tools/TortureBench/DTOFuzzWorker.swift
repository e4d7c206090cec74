import BenchSupport
import Data
import Domain
import Foundation

/// `worker dto-fuzz`: feeds generated and mutated replies (status, headers, JSON bodies) to both
/// contracts' gateways (sign-in, refresh, revocation) and to `GET /api/me`. Each trial must end in a
/// session or a typed error, and no error may quote a token the reply carried. Prints one line per
/// trial: `T index ok|error KIND|LEAK what`.
///
/// Arguments: `--seed`, `--from`, `--to`.
enum DTOFuzzWorker {
    /// Marks every token value a generated reply holds, so a leak into an error is found.
    static let marker = "TOKENMARK"

    static func run(_ arguments: [String]) async -> Int32 {
        let options = TrialArguments(arguments)
        let now = Date()
        for index in options.range {
            var random = SeededGenerator(seed: options.seed ^ (UInt64(index) &* 0x9E37_79B9_7F4A_7C15))
            let answers = (0..<2).map { _ in answer(&random) }
            let http = FuzzHTTPClient(answers)
            let clock: @Sendable () -> Date = { now }
            let oauth = OAuthAuthenticationGateway(http: http, clientID: "hardtack-cli", now: clock)
            let header = HeaderAuthenticationGateway(http: http, clientID: "hardtack-cli", now: clock)
            let outcome: Result<String, AuthenticationError>
            do throws(AuthenticationError) {
                let session = try Session(
                    accessToken: AccessToken(value: SecretBytes(utf8: "old-access"), issuedAt: now, expiresAt: nil),
                    refreshToken: RefreshToken(value: SecretBytes(utf8: "old-refresh")), user: nil, method: .password)
                let password = Credentials.password(username: "alice", password: SecretBytes(utf8: "wonderland"))
                switch Int.random(in: 0..<7, using: &random) {
                case 0: _ = try await oauth.signIn(password)
                case 1: _ = try await oauth.refresh(session)
                case 2: _ = try await header.signIn(password)
                case 3:
                    _ = try await header.signIn(.identityToken(provider: "apple", token: SecretBytes(utf8: "id-token")))
                case 4: _ = try await header.refresh(session)
                case 5: try await oauth.revoke(session.refreshToken)
                default: _ = try await ProfileAPI(http: http).me(session.accessToken)
                }
                outcome = .success("ok")
            } catch {
                outcome = .failure(error)
            }
            switch outcome {
            case .success:
                emit("T \(index) ok")
            case .failure(let error):
                let text = error.description
                if text.contains(marker) {
                    emit("T \(index) LEAK \(kind(error))")
                } else {
                    emit("T \(index) error \(kind(error))")
                }
            }
        }
        emit("DONE")
        return 0
    }

    private static func kind(_ error: AuthenticationError) -> String {
        switch error {
        case .invalidCredentials: "invalidCredentials"
        case .notSignedIn: "notSignedIn"
        case .sessionExpired: "sessionExpired"
        case .refreshInterrupted: "refreshInterrupted"
        case .temporarilyUnavailable: "temporarilyUnavailable"
        case .storeUnavailable: "storeUnavailable"
        case .storeDamaged: "storeDamaged"
        case .storageFailed: "storageFailed"
        case .refreshStorm: "refreshStorm"
        case .unauthorized: "unauthorized"
        case .invalidResponse: "invalidResponse"
        case .invalidLegacyFile: "invalidLegacyFile"
        case .rejected: "rejected"
        case .unsupported: "unsupported"
        }
    }

    /// A generated answer: mostly a mutated reply in one of the contracts' shapes.
    private static func answer(_ random: inout SeededGenerator) -> FuzzHTTPClient.Answer {
        if random.chance(0.05) {
            return .failure(
                random.pick([
                    HTTPClientError.timedOut, .cannotConnect("refused"), .responseTooLarge(limit: 65536),
                    .transport("reset"),
                ]))
        }
        let status =
            random.chance(0.6)
            ? 200 : random.pick([201, 204, 301, 400, 401, 403, 404, 408, 429, 500, 502, 503, 0, -1, 999, 100])
        var headers = HTTPHeaders()
        if random.chance(0.7) {
            headers.add(
                "Content-Type",
                random.pick([
                    "application/json", "application/json; charset=utf-8", "text/html", "",
                    "application/x-www-form-urlencoded",
                ]))
        }
        let token = "\(marker)." + random.hex(Int.random(in: 1...40, using: &random))
        if random.chance(0.5) {
            headers.add(
                "Authorization",
                random.pick([
                    "Bearer \(token)", token, "bearer  \(token)", "Bearer", "", "Bearer \(token) extra",
                    "Basic \(token)", "Bearer \(token)\u{0}",
                ]))
        }
        if random.chance(0.4) {
            headers.add("Authorization-refresh", random.pick(["Bearer \(token)r", "\(token)r", "", "Bearer"]))
        }
        for _ in 0..<Int.random(in: 0...3, using: &random) {
            headers.add(
                random.pick(["X-Junk", "authorization", "Set-Cookie", ""]),
                String(decoding: random.bytes(12), as: UTF8.self))
        }
        return .response(HTTPResponse(status: status, headers: headers, body: Data(body(token, &random))))
    }

    /// A reply body: a template of one contract, often mutated, or junk.
    private static func body(_ token: String, _ random: inout SeededGenerator) -> [UInt8] {
        let number = random.pick([
            "300", "-5", "0", "1e400", "3.5", "\"300\"", "null", "31622401", "9223372036854775808", "[]",
        ])
        let templates = [
            #"{"access_token":"\#(token)","token_type":"Bearer","expires_in":\#(number),"refresh_token":"\#(token)r","scope":"profile"}"#,
            #"{"access_token":"\#(token)","token_type":"\#(random.pick(["bearer", "BEARER", "mac", "", "Bearer "]))"}"#,
            #"{"error":"\#(random.pick(["invalid_grant", "invalid_request", "invalid_client", "temporarily_unavailable", ""]))","error_description":"desc \u001b[31m"}"#,
            #"{"userId":"u1","nickname":"Alice","refreshToken":"\#(token)r"}"#,
            #"{"sub":"alice","name":"Alice"}"#,
            "<html><body>portal</body></html>",
            "",
        ]
        var body = Array(random.pick(templates).utf8)
        switch Int.random(in: 0..<10, using: &random) {
        case 0...4:
            body = Mutations.mutate(body, &random)
        case 5:
            // Deep nesting.
            let depth = Int.random(in: 1...30_000, using: &random)
            body = Array(repeating: UInt8(ascii: "["), count: depth) + Array(repeating: UInt8(ascii: "]"), count: depth)
        case 6:
            body = random.bytes(Int.random(in: 0...512, using: &random))
        case 7:
            // Large bodies around the 64 KiB limit.
            body =
                Array(#"{"access_token":""#.utf8)
                + Array(repeating: UInt8(ascii: "a"), count: Int.random(in: 60_000...70_000, using: &random))
                + Array(#"","token_type":"Bearer"}"#.utf8)
        default:
            break
        }
        return body
    }
}
