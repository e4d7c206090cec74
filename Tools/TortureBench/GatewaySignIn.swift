/// A user's sign-in through the gateway as a browser makes it, with `hardtack serve`'s login form:
/// `/bff/login` on one instance, the issuer's form (through the fault proxy, which is the issuer's
/// address), the callback on the next instance; the session cookie's value at the end.
struct GatewaySignIn: Sendable {
    /// A step that did not answer as a browser needs.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The instances, in turn.
    let balancer: RoundRobin
    /// The `Host` the browser sends to the gateway (the public origin's).
    let host: String
    /// The issuer's port (the proxy in front of `hardtack serve`).
    let issuerPort: UInt16
    /// The session cookie's name.
    let cookieName: String

    /// Signs alice in; returns the session cookie's value.
    func run() throws -> String {
        let login = try answer(
            BrowserRequest(target: "/bff/login?returnUrl=%2F", host: host), to: nil, expecting: 302, step: "GET /bff/login")
        let issuer = "http://127.0.0.1:\(issuerPort)"
        guard let authorize = login.field("Location"), authorize.hasPrefix(issuer + "/") else {
            throw Failure(description: "GET /bff/login did not redirect to the issuer")
        }
        let issuerHost = "127.0.0.1:\(issuerPort)"
        let form = try answer(
            BrowserRequest(target: String(authorize.dropFirst(issuer.count)), host: issuerHost), to: issuerPort,
            expecting: 200, step: "the issuer's form")
        var fields = Self.hiddenFields(String(decoding: form.body, as: UTF8.self))
        guard !fields.isEmpty else { throw Failure(description: "the issuer's form has no hidden fields") }
        fields += [("username", "alice"), ("password", "wonderland"), ("decision", "approve")]
        let body = fields.map { BrowserRequest.formEncoded($0.0) + "=" + BrowserRequest.formEncoded($0.1) }
            .joined(separator: "&")
        let approved = try answer(
            BrowserRequest(
                method: "POST", target: "/oauth/authorize", host: issuerHost,
                fields: [("Content-Type", "application/x-www-form-urlencoded")], body: Array(body.utf8)),
            to: issuerPort, expecting: 302, step: "the issuer's sign-in")
        guard let callback = approved.field("Location"), let path = callback.firstRange(of: "/bff/callback?") else {
            throw Failure(description: "the issuer did not redirect to the gateway's callback")
        }
        let carried = login.cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
        let signedIn = try answer(
            BrowserRequest(target: String(callback[path.lowerBound...]), host: host, fields: [("Cookie", carried)]),
            to: nil, expecting: 302, step: "GET /bff/callback")
        guard let cookie = signedIn.cookies.first(where: { $0.name == cookieName }), !cookie.value.isEmpty else {
            throw Failure(description: "the callback set no \(cookieName) cookie")
        }
        return cookie.value
    }

    /// Sends `request` to `port`, or to the instances in turn (the next when one refuses), and checks the
    /// status.
    private func answer(_ request: BrowserRequest, to port: UInt16?, expecting status: Int, step: String) throws
        -> BrowserRequest.Answer
    {
        for _ in 0..<(balancer.ports.count * 2) {
            switch request.send(to: port ?? balancer.next(), timeout: 30) {
            case .answered(let answer) where answer.status == status: return answer
            case .answered(let answer): throw Failure(description: "\(step) answered \(answer.status), not \(status)")
            case .refused, .cut: continue
            }
        }
        throw Failure(description: "\(step): no answer")
    }

    /// The `name` and `value` of each `<input type="hidden" …>` in `page`, entities decoded.
    static func hiddenFields(_ page: String) -> [(String, String)] {
        page.split(separator: "<input type=\"hidden\" name=\"").dropFirst().compactMap { piece in
            guard let nameEnd = piece.firstRange(of: "\" value=\"") else { return nil }
            let rest = piece[nameEnd.upperBound...]
            guard let valueEnd = rest.firstIndex(of: "\"") else { return nil }
            let value = rest[..<valueEnd].replacing("&quot;", with: "\"").replacing("&lt;", with: "<")
                .replacing("&gt;", with: ">").replacing("&amp;", with: "&")
            return (String(piece[..<nameEnd.lowerBound]), String(value))
        }
    }
}
