import Data
import Foundation

/// Builds the requests the tests send, the way a client of each contract would.
enum Requests {
    /// The OAuth client the default server knows.
    static let clientID = "hardtack-cli"

    /// A form-encoded POST.
    static func form(_ path: String, _ fields: [(String, String)]) -> HTTPRequest {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = fields.map { name, value in
            "\(name.addingPercentEncoding(withAllowedCharacters: allowed)!)=\(value.addingPercentEncoding(withAllowedCharacters: allowed)!)"
        }.joined(separator: "&")
        return HTTPRequest(
            method: "POST", path: path,
            headers: HTTPHeaders([("Content-Type", "application/x-www-form-urlencoded")]), body: Data(body.utf8))
    }

    /// A password grant for `username`.
    static func passwordGrant(
        username: String = "alice", password: String = "wonderland", clientID: String = clientID
    ) -> HTTPRequest {
        form(
            "/oauth/token",
            [("grant_type", "password"), ("username", username), ("password", password), ("client_id", clientID)])
    }

    /// A refresh-token grant.
    static func refreshGrant(_ refreshToken: String, clientID: String = clientID) -> HTTPRequest {
        form(
            "/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", clientID)])
    }

    /// A JSON POST.
    static func json(_ path: String, _ object: [String: String], headers: [(String, String)] = []) -> HTTPRequest {
        var allHeaders = HTTPHeaders([("Content-Type", "application/json")])
        for (name, value) in headers { allHeaders.add(name, value) }
        let body = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return HTTPRequest(method: "POST", path: path, headers: allHeaders, body: body)
    }

    /// A header-style refresh presenting `refreshToken` in `Authorization-refresh`.
    static func headerRefresh(_ refreshToken: String) -> HTTPRequest {
        HTTPRequest(
            method: "POST", path: "/auth/refresh", headers: HTTPHeaders([("Authorization-refresh", refreshToken)]))
    }

    /// `GET /api/me` with `authorization` as the whole `Authorization` value (none when nil).
    static func me(authorization: String?) -> HTTPRequest {
        var headers = HTTPHeaders()
        if let authorization { headers["Authorization"] = authorization }
        return HTTPRequest(method: "GET", path: "/api/me", headers: headers)
    }

    /// `GET /api/me` with a Bearer token.
    static func me(_ accessToken: String) -> HTTPRequest {
        me(authorization: "Bearer \(accessToken)")
    }
}

extension HTTPResponse {
    /// The body as a JSON object (empty when it is not one).
    var object: [String: Any] {
        ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any]) ?? [:]
    }

    /// A string member of the JSON body.
    func string(_ key: String) -> String? { object[key] as? String }

    /// The body as text.
    var text: String { String(decoding: body, as: UTF8.self) }
}
