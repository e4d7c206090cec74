import Data
import Domain
import StoreCore

/// The crash loop's key specs (`k:HEX` for 32 raw bytes, `p:TEXT` for a passphrase) as key sources.
enum CrashKeys {
    /// The key source a spec names (`nil` when malformed).
    static func source(_ spec: String) -> KeySource? {
        if spec.hasPrefix("k:"), let bytes = bytes(fromHex: String(spec.dropFirst(2))), bytes.count == 32 {
            return .key(SecretBytes(bytes))
        }
        if spec.hasPrefix("p:") { return .passphrase(SecretBytes(utf8: String(spec.dropFirst(2)))) }
        return nil
    }

    /// Store options for the loop: cheap Argon2id for its passphrases, a long lock wait.
    static let options = StoreOptions(passphraseCost: .interactive, busyTimeoutMilliseconds: 10_000)
}
