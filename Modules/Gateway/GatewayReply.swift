import Data
import Foundation

/// The gateway's own answers: JSON errors that say what happened (never a token, a cookie or a code),
/// redirects, and its cookies' fields.
enum GatewayReply {
    /// A JSON error: `{"error": code, "message": message}`.
    static func error(_ status: Int, _ code: String, _ message: String, headers: [(String, String)] = []) -> HTTPResponse {
        json(["error": code, "message": message], status: status, headers: headers)
    }

    /// A JSON answer (keys sorted, `/` written as it is), never stored by a cache.
    static func json(_ object: [String: Any], status: Int = 200, headers: [(String, String)] = []) -> HTTPResponse {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return HTTPResponse(
            status: status,
            headers: HTTPHeaders([("Content-Type", "application/json"), ("Cache-Control", "no-store")] + headers), body: data)
    }

    /// A 302 to `location` (which the caller has checked).
    static func redirect(_ location: String, headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(
            status: 302, headers: HTTPHeaders([("Location", location), ("Cache-Control", "no-store")] + headers))
    }

    /// A `Set-Cookie` field for a `__Host-` cookie: `Secure`, `HttpOnly`, `Path=/`, no `Domain`.
    static func setCookie(_ name: String, _ value: String, sameSite: String, maxAge: Int? = nil) -> (String, String) {
        var text = "\(name)=\(value); Path=/; Secure; HttpOnly; SameSite=\(sameSite)"
        if let maxAge { text += "; Max-Age=\(maxAge)" }
        return ("Set-Cookie", text)
    }

    /// A `Set-Cookie` field that deletes the cookie `name`.
    static func clearCookie(_ name: String) -> (String, String) {
        ("Set-Cookie", "\(name)=; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=0")
    }
}
