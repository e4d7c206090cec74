package import Data
import Domain
import Foundation

/// Turns a ``KeySource`` into the key-encryption key for a header, reading and (for a new store)
/// creating key files.
package enum KeyMaterial {
    /// The key-encryption key for `header` from `source`.
    /// - Parameter creating: whether a missing key file may be created (only for a new store or a
    ///   change of key, never for opening an existing store).
    package static func keyEncryptionKey(from source: KeySource, header: StoreHeader, creating: Bool) throws(SecureStoreError)
        -> SecureKey
    {
        switch (source, header.keyKind) {
        case (.passphrase(let passphrase), .passphrase):
            guard !passphrase.isEmpty else { throw .invalidKeyMaterial("the passphrase is empty") }
            return try Sodium.argon2id(
                passphrase: passphrase, salt: header.salt, opsLimit: header.cost.opsLimit,
                memLimit: header.cost.memLimit)
        case (.passphrase, .keyMaterial):
            throw .keySourceMismatch(expected: .key)
        case (_, .passphrase):
            throw .keySourceMismatch(expected: .passphrase)
        case (_, .keyMaterial):
            let material = try rawKey(from: source, creating: creating)
            // Domain-separate the stored material from the key it yields, and bind it to the salt.
            let kek = try SecureKey()
            try kek.fill { out throws(SecureStoreError) in
                try Sodium.keyedHash(Array("HTK-kek".utf8) + header.salt, key: material, into: out, length: 32)
            }
            return kek
        }
    }

    /// Checks, before a new store's file is made, what can be checked of `source` without creating
    /// anything (an existing key file, credential or variable is read; a key file's directory is
    /// inspected), so that a refusal leaves no stub store behind.
    package static func checkBeforeCreating(_ source: KeySource) throws(SecureStoreError) {
        switch source {
        case .passphrase(let passphrase):
            guard !passphrase.isEmpty else { throw .invalidKeyMaterial("the passphrase is empty") }
        case .keyFile(let path) where access(path, F_OK) != 0:
            try FileSecurity.checkDirectoryIfPresent(FileSecurity.parentDirectory(of: path))
        default:
            _ = try rawKey(from: source, creating: false)
        }
    }

    /// The 32 bytes a non-passphrase source holds.
    package static func rawKey(from source: KeySource, creating: Bool) throws(SecureStoreError) -> SecureKey {
        switch source {
        case .passphrase:
            throw .keySourceMismatch(expected: .key)
        case .key(let bytes):
            return try SecureKey(copying: bytes)
        case .keyFile(let path):
            return try keyFile(at: path, creating: creating)
        case .environment(let variable):
            guard let value = ProcessInfo.processInfo.environment[variable] else {
                throw .invalidKeyMaterial("the environment variable \(variable) is not set")
            }
            return try decodeText(Array(value.utf8), what: "the environment variable \(variable)")
        case .systemdCredential(let name):
            guard let directory = ProcessInfo.processInfo.environment["CREDENTIALS_DIRECTORY"] else {
                throw .invalidKeyMaterial(
                    "CREDENTIALS_DIRECTORY is not set: run under systemd with LoadCredential=\(name):…")
            }
            var bytes = try FileSecurity.readPrivateFile(directory + "/" + name, maxBytes: 256)
            defer { bytes.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
            if bytes.count == SecureKey.byteCount {
                return try SecureKey(copying: bytes)
            }
            return try decodeText(bytes, what: "the credential \(name)")
        }
    }

    /// Reads a key file of exactly 32 bytes, or creates one (0600, written atomically) when allowed.
    private static func keyFile(at path: String, creating: Bool) throws(SecureStoreError) -> SecureKey {
        if access(path, F_OK) != 0 {
            guard creating else {
                throw .invalidKeyMaterial(
                    "the key file \(path) does not exist, and this store was made with a key file; "
                        + "give the one it was made with")
            }
            try FileSecurity.prepareDirectory(FileSecurity.parentDirectory(of: path))
            // Unique per attempt, not just per process: two threads opening one new store at once would
            // otherwise share it, and one would unlink the other's file before it was published.
            let suffix = Sodium.randomBytes(8).map { String($0, radix: 16) }.joined()
            let temporary = path + ".tmp-\(getpid())-\(suffix)"
            var fresh = Sodium.randomBytes(SecureKey.byteCount)
            defer { fresh.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
            try FileSecurity.createPrivateFile(temporary, contents: fresh)
            // link() publishes the finished file atomically; if another process won, use its key.
            let linked = link(temporary, path)
            let linkError = errno  // read before unlink() can change it
            unlink(temporary)
            if linked != 0 && linkError != EEXIST {
                throw .storage(.posix("cannot create the key file \(path)", errno: linkError))
            }
            // The store about to be written under this key must never outlive the key file's entry.
            FileSecurity.syncDirectory(FileSecurity.parentDirectory(of: path))
        }
        var bytes = try FileSecurity.readPrivateFile(path, maxBytes: 64)
        defer { bytes.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        guard !bytes.isEmpty else { throw .invalidKeyMaterial("the key file \(path) is empty") }
        guard bytes.count == SecureKey.byteCount else {
            // The read stops after 64 bytes, so a longer file is "more than 64", not its size.
            let size = bytes.count > 64 ? "more than 64" : "\(bytes.count)"
            throw .invalidKeyMaterial(
                "the key file \(path) holds \(size) bytes; a key file holds exactly 32 random bytes")
        }
        return try SecureKey(copying: bytes)
    }

    /// Decodes 32 bytes written as 64 hex digits or as base64.
    private static func decodeText(_ text: [UInt8], what: String) throws(SecureStoreError) -> SecureKey {
        var trimmed = text
        defer { trimmed.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        while let last = trimmed.last, last == 0x0A || last == 0x0D || last == 0x20 { trimmed.removeLast() }
        var decoded: [UInt8] = []
        defer { decoded.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        if trimmed.count == 64, let hex = decodeHex(trimmed) {
            decoded = hex
        } else if let data = Data(base64Encoded: Data(trimmed)), data.count == SecureKey.byteCount {
            decoded = Array(data)
        } else {
            throw .invalidKeyMaterial("\(what) must hold 32 bytes as 64 hex digits or base64")
        }
        return try SecureKey(copying: decoded)
    }

    private static func decodeHex(_ text: [UInt8]) -> [UInt8]? {
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x61...0x66: c - 0x61 + 10
            case 0x41...0x46: c - 0x41 + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 2)
        var index = 0
        while index + 1 < text.count {
            guard let high = nibble(text[index]), let low = nibble(text[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }
}
