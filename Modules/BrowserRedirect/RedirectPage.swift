import Data
import Foundation

/// The pages the redirect listener answers with: a small HTML page holding one escaped message (never
/// a secret), not cached, sent with no referrer.
enum RedirectPage {
    /// The page showing `message` with `status`.
    static func response(_ status: Int, _ message: String) -> HTTPResponse {
        let escaped = message.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
        let body = "<!doctype html><meta charset=\"utf-8\"><title>Hardtack</title><p>\(escaped)</p>\n"
        return HTTPResponse(
            status: status,
            headers: HTTPHeaders([
                ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"),
                ("Referrer-Policy", "no-referrer"),
            ]), body: Data(body.utf8))
    }

    /// A request that is not a `GET`.
    static var badRequest: HTTPResponse { response(400, "Bad request.") }
    /// Another path than the redirect's (a browser's favicon).
    static var notFound: HTTPResponse { response(404, "Not found.") }
    /// The redirect again, after the first was taken (a reload, a second tab): the first one counts.
    static var alreadyReceived: HTTPResponse {
        response(409, "This sign-in already received its answer. The terminal says how it ended; you may close this window.")
    }
}
