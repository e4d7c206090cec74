import CCurl
import Locking

/// The idle curl easy handles of one ``CurlHTTPClient``, so that a request does not set up a handle of
/// its own (the connections they used stay in the ``CurlMulti`` they ran on, which reuses them). A
/// handle serves one transfer at a time. Each thread's handles wait apart (a server's loops take and give
/// one at every call, and would otherwise wait for one another's lock), and a handle goes back to the
/// thread it was taken on: at most ``capacity`` wait per thread that calls, more are cleaned up; a pool of
/// capacity 0 is a client that keeps no connections.
final class CurlHandlePool: Sendable {
    /// An easy handle, owned by the pool while idle and by one transfer while in use.
    struct Handle: Equatable, @unchecked Sendable {
        // Safety: a handle is used by one thread at a time, handed over through the pool's lock.
        let raw: UnsafeMutableRawPointer
        /// The copy of the idle handles it was taken from, and goes back to (a transfer started off a loop
        /// ends on the loop's thread: its handle goes back where the next call from that thread looks).
        var home = 0
    }

    /// The most idle handles kept by each thread.
    let capacity: Int
    private let idle = PerThread<[Handle]> { [] }

    /// libcurl's global state, set up once before the first handle (its own setup is not thread-safe).
    static let globalSetup: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    /// A pool that keeps at most `capacity` idle handles per thread.
    init(capacity: Int) {
        self.capacity = capacity
    }

    deinit {
        idle.forEach { handles in
            for handle in handles { curl_easy_cleanup(handle.raw) }
            handles = []
        }
    }

    /// An idle handle, or a new one; `nil` when curl cannot start.
    func take() -> Handle? {
        let home = idle.currentCopy
        if let handle = idle.withLock(copy: home, { $0.popLast() }) { return handle }
        guard Self.globalSetup == CURLE_OK, let raw = curl_easy_init() else { return nil }
        return Handle(raw: raw, home: home)
    }

    /// Takes `handle` back after its transfer: with its options reset (no pointer into the finished
    /// request is left in it) when `reusable` and there is room, otherwise cleaned up.
    func give(_ handle: Handle, reusable: Bool) {
        if reusable {
            curl_easy_reset(handle.raw)
            let kept = idle.withLock(copy: handle.home) { handles in
                guard handles.count < capacity else { return false }
                handles.append(handle)
                return true
            }
            if kept { return }
        }
        curl_easy_cleanup(handle.raw)
    }
}
