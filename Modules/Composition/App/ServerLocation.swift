public import Foundation

/// Where the auth server is.
public enum ServerLocation: Sendable {
    /// A real server at this base URL, reached over HTTP (libcurl on Linux, URLSession elsewhere).
    case remote(URL)
    /// The embedded auth server, in this process, with no sockets (the demo and tests).
    case embedded
}
