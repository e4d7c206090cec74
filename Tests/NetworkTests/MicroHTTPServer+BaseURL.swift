import Foundation
import MicroHTTPD

extension MicroHTTPServer {
    /// `http://127.0.0.1:<port>`, for a test server on the loopback address.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
}
