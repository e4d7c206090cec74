import CurlHTTP
import Data
import Foundation
import Testing

/// The project's Authlib provider that `Tools/oauth-server run` starts (`HARDTACK_TEST_AUTHLIB`), and its
/// test controls.
struct TestProvider {
    /// Its URL, which is also its issuer.
    let issuer: String

    /// The running provider; without one the test fails and says how to run it.
    init() throws {
        issuer = try #require(
            authlibIssuer,
            "HARDTACK_TEST_AUTHLIB is not set: run the tests with Tools/test (it starts the Authlib provider)")
    }

    private var client: CurlHTTPClient { CurlHTTPClient(baseURL: URL(string: issuer)!, timeout: 30) }

    /// `GET /test/state`: its counters (never a token).
    func state() async throws -> [String: Any] {
        let response = try await client.send(HTTPRequest(method: "GET", path: "/test/state"))
        return try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
    }

    /// A counter of `/test/state`.
    func count(_ name: String) async throws -> Int { try await state()[name] as? Int ?? 0 }

    /// Refreshes the provider answered for `client`.
    func refreshes(_ clientID: String) async throws -> Int {
        (try await state()["refreshes_by_client"] as? [String: Int])?[clientID] ?? 0
    }

    /// Every token (access, refresh, ID) the provider issued to `clientID`: for tests that look for them
    /// where they must not be.
    func issuedTokens(_ clientID: String) async throws -> [String] {
        let response = try await client.send(
            HTTPRequest(method: "GET", path: "/test/issued-tokens?client_id=" + clientID))
        return try #require(try JSONSerialization.jsonObject(with: response.body) as? [String])
    }

    /// POSTs `fields` as a form to the test control at `path`; its JSON answer.
    @discardableResult
    func control(_ path: String, _ fields: [(String, String)]) async throws -> [String: Any] {
        let response = try await client.send(
            HTTPRequest(
                method: "POST", path: path,
                headers: HTTPHeaders([("Content-Type", "application/x-www-form-urlencoded")]),
                body: FormBody.encode(fields)))
        #expect(response.status < 300, "\(path): \(String(decoding: response.body, as: UTF8.self).prefix(200))")
        return (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:]
    }
}
