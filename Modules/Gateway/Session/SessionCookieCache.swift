import Data
import Domain
import Locking

/// The session cookies the gateway has verified, so that the next request bearing the same cookie skips its
/// tag check and its keys' derivations (three keyed hashes): found by the session id (not secret), and used
/// only when the whole cookie, id, secret and tag, is byte for byte the one verified, compared in constant
/// time. A cookie that differs in any byte is verified as if first seen. Whether a cookie is well made does
/// not depend on its session (ended or not), so keeping it changes no answer. The cookies' bytes are kept in
/// memory that is wiped when let go of. Bounded: past `capacity` cookies the entries start over.
final class SessionCookieCache: Sendable {
    /// A session id's 16 bytes, as a dictionary key.
    private struct ID: Hashable {
        let high: UInt64
        let low: UInt64
        init(_ bytes: UnsafeRawBufferPointer) {
            high = bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
            low = bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        }
    }

    private struct Entry {
        let bytes: SecretBytes
        let cookie: SessionCookie
    }

    private let capacity: Int
    private let entries = Locked<[ID: Entry]>([:])

    /// A cache of at most `capacity` cookies.
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The session cookie named `name` in `headers`, if it carries a well-made one (see
    /// ``SessionCookie/init(_:name:tagKey:)``).
    func cookie(_ headers: HTTPHeaders, name: String, tagKey: SecretBytes) -> SessionCookie? {
        guard var bytes = SessionCookie.bytes(headers, name: name) else { return nil }
        defer { SessionCookie.wipe(&bytes) }
        let id = bytes.withUnsafeBytes { ID(UnsafeRawBufferPointer(rebasing: $0[0..<16])) }
        if let entry = entries.withLock({ $0[id] }), bytes.withUnsafeBytes({ entry.bytes.constantTimeEquals($0) }) {
            return entry.cookie
        }
        guard let cookie = SessionCookie(verifying: bytes, tagKey: tagKey) else { return nil }
        let value = SecretBytes(bytes)
        entries.withLock { entries in
            if entries[id] == nil, entries.count >= capacity { entries.removeAll() }
            entries[id] = Entry(bytes: value, cookie: cookie)
        }
        return cookie
    }
}
