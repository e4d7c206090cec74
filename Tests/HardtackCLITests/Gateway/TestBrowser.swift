import CurlHTTP
import Data
import Foundation
import TestSupport
import Testing

/// A browser for tests that need more than one request to mean anything: it keeps cookies per origin
/// (as a browser would, by name, honouring `Max-Age=0`), follows nothing by itself, and can fill in the
/// test provider's sign-in form.
final class TestBrowser: Sendable {
    private let jar = Locked<[String: [String: String]]>([:])

    /// The cookies kept for `origin` (`scheme://host:port`).
    func cookies(for origin: String) -> [String: String] {
        jar.withLock { $0[origin] ?? [:] }
    }

    /// Sets (or, with `nil`, removes) a cookie, as a page's script or an attacker would.
    func setCookie(_ name: String, _ value: String?, for origin: String) {
        jar.withLock { $0[origin, default: [:]][name] = value }
    }

    /// Sends a request to the absolute `url` with this origin's cookies, and keeps what it sets.
    func send(
        _ method: String, _ url: String, headers: [(String, String)] = [], body: Data = Data(), withCookies: Bool = true
    ) async throws -> HTTPResponse {
        let target = try #require(URL(string: url))
        let origin = Self.origin(of: target)
        var fields = HTTPHeaders(headers)
        let cookies = cookies(for: origin)
        if withCookies, !cookies.isEmpty {
            fields["Cookie"] = cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
                separator: "; ")
        }
        let path = String(url.dropFirst(origin.count))
        let client = CurlHTTPClient(baseURL: URL(string: origin)!, timeout: 30, responseSizeLimit: 16 << 20)
        let response = try await client.send(
            HTTPRequest(method: method, path: path.isEmpty ? "/" : path, headers: fields, body: body))
        for field in response.headers where field.name.lowercased() == "set-cookie" {
            let pair = field.value.split(separator: ";")[0].split(
                separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(pair[0]).trimmingCharacters(in: .whitespaces)
            let value = pair.count > 1 ? String(pair[1]) : ""
            let removed = field.value.lowercased().contains("max-age=0")
            jar.withLock { $0[origin, default: [:]][name] = removed ? nil : value }
        }
        return response
    }

    /// GETs the absolute `url` with this origin's cookies, and returns once the answer's head is in, its
    /// body streaming (read it, or cancel it to leave as a browser would). Cookies it sets are not kept.
    func stream(_ url: String, headers: [(String, String)] = []) async throws -> HTTPStreamedResponse {
        let target = try #require(URL(string: url))
        let origin = Self.origin(of: target)
        var fields = HTTPHeaders(headers)
        let cookies = cookies(for: origin)
        if !cookies.isEmpty {
            fields["Cookie"] = cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
        }
        let client = CurlHTTPClient(baseURL: URL(string: origin)!, timeout: 30, responseSizeLimit: .max)
        return try await client.stream(HTTPRequest(method: "GET", path: String(url.dropFirst(origin.count)), headers: fields))
    }

    /// GET `url`.
    func get(_ url: String, headers: [(String, String)] = []) async throws -> HTTPResponse {
        try await send("GET", url, headers: headers)
    }

    /// Signs in through `gateway`'s `/bff/login` at the test provider's form as `user`, following each
    /// redirect; the gateway's last answer (its redirect back to `returnUrl`).
    func signIn(
        gateway: String, user: String, password: String, returnUrl: String = "/after"
    ) async throws -> HTTPResponse {
        let login = try await get(gateway + "/bff/login?returnUrl=" + returnUrl)
        #expect(login.status == 302, "\(String(decoding: login.body, as: UTF8.self))")
        let authorize = try #require(login.headers["Location"])
        let form = try await get(authorize)
        let page = String(decoding: form.body, as: UTF8.self)
        #expect(form.status == 200, "\(page.prefix(300))")
        var fields = Self.hiddenFields(page)
        fields += [("username", user), ("password", password), ("decision", "approve")]
        // The form posts back to the authorization endpoint (Authlib's /authorize, the embedded /oauth/authorize).
        let approved = try await send(
            "POST", String(authorize.prefix { $0 != "?" }), headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: FormBody.encode(fields))
        #expect(approved.status == 302, "\(String(decoding: approved.body, as: UTF8.self).prefix(300))")
        let callback = try #require(approved.headers["Location"])
        return try await get(callback)
    }

    /// The hidden fields of a page's form.
    static func hiddenFields(_ page: String) -> [(String, String)] {
        let pattern = try! Regex(#"<input type="hidden" name="([^"]*)" value="([^"]*)">"#)
        return page.matches(of: pattern).map { match in
            (
                Self.unescape(String(match.output[1].substring ?? "")),
                Self.unescape(String(match.output[2].substring ?? ""))
            )
        }
    }

    private static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#x27;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// `scheme://host:port` of `url`.
    static func origin(of url: URL) -> String {
        "\(url.scheme ?? "http")://\(url.host ?? "")" + (url.port.map { ":\($0)" } ?? "")
    }
}
