public import Data
import Domain

/// The key sources a user named (options and the environment), before precedence and defaults.
public struct KeyRequest: Sendable, Hashable {
    /// A file whose first line is the passphrase (`--passphrase-file`).
    public var passphraseFile: String?
    /// An environment variable holding 32 bytes of key material (`--key-env`).
    public var keyVariable: String?
    /// A systemd credential holding 32 bytes of key material (`--key-credential`).
    public var credentialName: String?
    /// A key file (`--key-file`).
    public var keyFile: String?

    /// Creates a request; every source is optional.
    public init(
        passphraseFile: String? = nil, keyVariable: String? = nil, credentialName: String? = nil,
        keyFile: String? = nil
    ) {
        self.passphraseFile = passphraseFile
        self.keyVariable = keyVariable
        self.credentialName = credentialName
        self.keyFile = keyFile
    }

    /// Picks one source: what the command line names wins over the environment, so the passphrase
    /// file, then the key variable, then the credential, then the key file, and only then the
    /// passphrase in `passphraseVariable`; `nil` when none was named.
    /// - Throws: ``SecureStoreError/invalidKeyMaterial(_:)`` when the passphrase file cannot be read or
    ///   its first line is empty, ``SecureStoreError/insecurePermissions(path:fix:)`` when others may
    ///   read it. No other source is read here.
    public func resolve(environment: [String: String], passphraseVariable: String) throws(SecureStoreError)
        -> KeyChoice?
    {
        if let passphraseFile {
            return .passphrase(try PassphraseFile.readFirstLine(passphraseFile))
        }
        if let keyVariable { return .environment(variable: keyVariable) }
        if let credentialName { return .systemdCredential(name: credentialName) }
        if let keyFile { return .keyFile(path: keyFile) }
        if let passphrase = environment[passphraseVariable] {
            return .passphrase(SecretBytes(utf8: passphrase))
        }
        return nil
    }
}
