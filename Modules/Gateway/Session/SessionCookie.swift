public import Domain
import Data
import Foundation

/// What the browser holds of a session: an opaque `__Host-` cookie of a session id (128 random bits,
/// which names the session in the store), a secret (256 random bits, from which the key that seals the
/// session's tokens is derived, and which the server never stores), and a 128-bit tag of both under a
/// key the gateway keeps in the store. A copy of the store and of the server's key file together open no
/// token without the user's cookie; a cookie the gateway did not make is refused before the store is
/// read (so that no one can make it search the store for sessions at will).
public struct SessionCookie: Sendable {
    /// The session id, 16 bytes.
    let id: [UInt8]
    /// The secret, 32 bytes.
    let secret: SecretBytes
    /// The session id as text: 32 lowercase hex digits. Not secret on its own (it opens nothing), it is
    /// what `/bff/user` names as `sid` and `/bff/logout` asks back, and the store's account name ends with it.
    let sessionID: String
    /// The key the session's tokens are sealed under: derived from the secret for this session.
    let tokensKey: SecretBytes
    /// What this cookie's refresher is kept under: the session id and a fingerprint of the secret, so that
    /// a cookie with another secret naming the same session never shares it.
    let refresherKey: String
    /// The account the session is kept under in the store: `gateway/` and the session id (made once, as
    /// every call through the cookie names it).
    let account: AccountName

    /// A new session's cookie.
    static func fresh() -> SessionCookie {
        SessionCookie(id: GatewaySeal.random(16), secret: SecretBytes(GatewaySeal.random(32)))
    }

    /// A cookie of `id` (16 bytes) and `secret` (32 bytes).
    init(id: [UInt8], secret: SecretBytes) {
        self.id = id
        self.secret = secret
        let sessionID = Hex.lowercase(id)
        self.sessionID = sessionID
        account = AccountName(Self.accountPrefix + sessionID)!
        tokensKey = GatewaySeal.derive(secret, purpose: "hardtack gateway session tokens " + sessionID)
        refresherKey =
            sessionID + "."
            + GatewaySeal.derive(secret, purpose: "hardtack gateway refresher").withUnsafeBytes { Hex.lowercase($0.prefix(8)) }
    }

    /// The cookie's value: base64url of the id, the secret and their tag under `tagKey` (86 characters).
    func value(tagKey: SecretBytes) -> String {
        var bytes = id
        secret.withUnsafeBytes { bytes.append(contentsOf: $0) }
        defer { bytes.withUnsafeMutableBytes { _ = memset($0.baseAddress!, 0, $0.count) } }
        bytes += bytes.withUnsafeBytes { GatewaySeal.tag($0, key: tagKey) }
        return Base64URL.encode(bytes)
    }

    /// The cookie named `name` in a request's `Cookie` fields, or `nil` when there is none, or its value is
    /// not a session cookie's, or its tag under `tagKey` is not the one the gateway made (never an error:
    /// a tampered or forged cookie is no session).
    init?(_ headers: HTTPHeaders, name: String, tagKey: SecretBytes) {
        guard var bytes = Self.bytes(headers, name: name) else { return nil }
        defer { Self.wipe(&bytes) }
        self.init(verifying: bytes, tagKey: tagKey)
    }

    /// The cookie whose decoded value is `bytes` (id, secret, tag: 64 bytes), or `nil` when its tag under
    /// `tagKey` is not the one the gateway made.
    init?(verifying bytes: [UInt8], tagKey: SecretBytes) {
        guard bytes.count == 64 else { return nil }
        let tagged = bytes.withUnsafeBytes { all in
            GatewaySeal.verifyTag(
                UnsafeRawBufferPointer(rebasing: all[48...]), of: UnsafeRawBufferPointer(rebasing: all[0..<48]), key: tagKey)
        }
        guard tagged else { return nil }
        self.init(id: Array(bytes[0..<16]), secret: SecretBytes(bytes[16..<48]))
    }

    /// The decoded value of the cookie named `name` in `headers` (64 bytes, to be wiped by the caller), or
    /// `nil` when there is none or it is not a session cookie's shape.
    static func bytes(_ headers: HTTPHeaders, name: String) -> [UInt8]? {
        guard let found = CookieHeader.value(name, in: headers), found.utf8.count == 86,
            var bytes = Base64URL.decodedBytes(found)
        else { return nil }
        guard bytes.count == 64 else {
            wipe(&bytes)
            return nil
        }
        return bytes
    }

    /// Zeroes `bytes` (a decoded cookie holds the secret).
    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { _ = memset($0.baseAddress!, 0, $0.count) }
    }

    /// What the store's account of every gateway session starts with.
    static let accountPrefix = "gateway/"

    /// The session id of `account`, when it is a gateway session's.
    public static func sessionID(of account: AccountName) -> String? {
        guard account.value.hasPrefix(accountPrefix) else { return nil }
        let id = String(account.value.dropFirst(accountPrefix.count))
        return id.utf8.count == 32 && id.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) ? id : nil
    }
}
