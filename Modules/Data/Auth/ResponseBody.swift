import Domain
import Foundation

/// Decodes JSON reply bodies defensively: bounded size, an HTML error page named as such, and no
/// body content ever quoted in an error.
enum ResponseBody {
    /// The largest reply body accepted from an auth server.
    static let maximumBytes = 64 * 1024

    /// Decodes `type` from the response's body.
    static func decode<Value: Decodable>(_ type: Value.Type, from response: HTTPResponse) throws(AuthenticationError)
        -> Value
    {
        let body = response.body
        guard body.count <= maximumBytes else {
            throw .invalidResponse("the reply body is over \(maximumBytes / 1024) KiB")
        }
        let firstByte = body.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        guard firstByte == UInt8(ascii: "{") else {
            if firstByte == UInt8(ascii: "<") {
                throw .invalidResponse("the reply is an HTML page (HTTP \(response.status)), not JSON")
            }
            throw .invalidResponse("the reply (HTTP \(response.status)) is not a JSON object")
        }
        do {
            return try JSONDecoder().decode(type, from: body)
        } catch {
            throw .invalidResponse("the reply (HTTP \(response.status)) is not the expected JSON")
        }
    }

    /// The OAuth error code and description of an error reply, when it has that shape.
    static func oauthError(in response: HTTPResponse) -> (code: String, description: String?)? {
        guard let error = try? decode(OAuthErrorDTO.self, from: response) else { return nil }
        return (error.error, error.errorDescription)
    }
}
