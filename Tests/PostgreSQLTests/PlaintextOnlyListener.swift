import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback listener that answers one client's TLS request (`SSLRequest`) with `N`, as a server
/// without TLS does, and then waits for it to hang up.
final class PlaintextOnlyListener: Sendable {
    /// The port it listens on.
    let port: UInt16
    private let descriptor: Int32

    init() {
        (descriptor, port) = RawSocket.silentListener()
        let descriptor = descriptor
        Thread.detachNewThread {
            let client = accept(descriptor, nil, nil)
            guard client >= 0 else { return }
            var request = [UInt8](repeating: 0, count: 8)
            _ = read(client, &request, 8)
            _ = write(client, "N", 1)
            var rest = [UInt8](repeating: 0, count: 512)
            while read(client, &rest, rest.count) > 0 {}
            close(client)
        }
    }

    deinit {
        shutdown(descriptor, Int32(SHUT_RDWR))
        close(descriptor)
    }
}
