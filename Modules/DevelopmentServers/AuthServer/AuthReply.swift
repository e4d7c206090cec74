import Data
import Foundation

/// Builds the embedded auth server's responses: JSON bodies, OAuth error objects (RFC 6749 §5.2),
/// and `WWW-Authenticate` challenges (RFC 6750 §3).
enum AuthReply {
    /// A JSON response; replies that carry or refuse credentials are marked `no-store`.
    static func json(_ status: Int, _ object: [String: Any], headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var headers = headers
        headers["Content-Type"] = "application/json; charset=utf-8"
        headers["Cache-Control"] = "no-store"
        headers["Pragma"] = "no-cache"
        // Only strings and integers go in, so serialization cannot fail.
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    /// An error object such as `{"error":"invalid_grant","error_description":"…"}`.
    static func error(_ status: Int, _ code: String, _ description: String, headers: HTTPHeaders = HTTPHeaders())
        -> HTTPResponse
    {
        json(status, ["error": code, "error_description": description], headers: headers)
    }

    /// 401 with `WWW-Authenticate: Bearer error="invalid_token"`.
    static func invalidToken(_ description: String) -> HTTPResponse {
        error(
            401, "invalid_token", description,
            headers: HTTPHeaders([("WWW-Authenticate", #"Bearer error="invalid_token""#)]))
    }

    /// 404 for a path the server does not serve.
    static func notFound() -> HTTPResponse {
        error(404, "not_found", "there is no such endpoint")
    }

    /// 405 naming the one method the path accepts.
    static func methodNotAllowed(allow: String) -> HTTPResponse {
        error(
            405, "method_not_allowed", "this endpoint accepts \(allow) only", headers: HTTPHeaders([("Allow", allow)]))
    }

    /// `body` parsed as a JSON object, or `nil` when it is not one.
    static func jsonObject(_ body: Data) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
    }
}
