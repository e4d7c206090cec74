import CurlHTTP
import Data
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What the libcurl client says of a server whose reply is not HTTP at all: that, not that its URL is unusable.
@Suite struct CurlReplyErrorTests {
    @Test func aReplyThatIsNotHTTPIsSaidToBeSo() async throws {
        let (listener, port) = RawSocket.silentListener()
        defer { close(listener) }
        Thread {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            var chunk = [UInt8](repeating: 0, count: 4096)
            _ = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            RawSocket.send(connection, Array("hello, this is not HTTP\r\n\r\n".utf8))
            close(connection)
        }.start()
        let client = CurlHTTPClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, timeout: 5)
        let error = await #expect(throws: HTTPClientError.self) {
            _ = try await client.send(HTTPRequest(method: "GET", path: "/"))
        }
        #expect(error?.description.contains("the reply was not HTTP") == true, "\(String(describing: error))")
    }
}
