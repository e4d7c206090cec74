import CCurl
import Locking

/// The idle curl easy handles of one ``CurlHTTPClient``, each with the connection its last transfer left
/// open, so that the next request to the same server reuses it instead of connecting again (curl keeps
/// a handle's connections through `curl_easy_reset`, and drops one the server closed or that stayed idle
/// too long). A handle serves one transfer at a time; at most ``capacity`` wait here, more are cleaned up.
final class CurlHandlePool: Sendable {
    /// An easy handle, owned by the pool while idle and by one transfer while in use.
    struct Handle: @unchecked Sendable {
        // Safety: a handle is used by one thread at a time, handed over through the pool's lock.
        let raw: UnsafeMutableRawPointer
    }

    /// The most idle handles kept.
    let capacity: Int
    private let idle = Locked<[Handle]>([])

    /// libcurl's global state, set up once before the first handle (its own setup is not thread-safe).
    static let globalSetup: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    /// A pool that keeps at most `capacity` idle handles.
    init(capacity: Int) {
        self.capacity = capacity
    }

    deinit {
        for handle in idle.withLock({ $0 }) { curl_easy_cleanup(handle.raw) }
    }

    /// An idle handle, or a new one; `nil` when curl cannot start.
    func take() -> Handle? {
        if let handle = idle.withLock({ $0.popLast() }) { return handle }
        guard Self.globalSetup == CURLE_OK, let raw = curl_easy_init() else { return nil }
        return Handle(raw: raw)
    }

    /// Takes `handle` back after its transfer: with its options reset (no pointer into the finished
    /// request is left in it) when `reusable` and there is room, otherwise cleaned up, its connection closed.
    func give(_ handle: Handle, reusable: Bool) {
        if reusable {
            curl_easy_reset(handle.raw)
            let kept = idle.withLock { handles in
                guard handles.count < capacity else { return false }
                handles.append(handle)
                return true
            }
            if kept { return }
        }
        curl_easy_cleanup(handle.raw)
    }
}
