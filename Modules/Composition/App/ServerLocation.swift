public import Data
public import Foundation

/// Where the auth server is.
public enum ServerLocation: Sendable {
    /// A real server at this base URL, reached over HTTP (libcurl on Linux, URLSession elsewhere).
    case remote(URL)
    /// A server in this process, reached through `transport` with no sockets (the demo's embedded
    /// server, a test's). Sessions signed in there record no origin: it lives as long as the process.
    case inProcess(any HTTPClient)
}
