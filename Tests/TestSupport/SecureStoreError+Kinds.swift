public import Data

/// Store errors by kind, whatever their message, for assertions.
extension SecureStoreError {
    /// Whether this is an integrity failure, whatever its message.
    public var isIntegrityFailure: Bool {
        if case .integrityFailure = self { true } else { false }
    }

    /// Whether this is a store (or export) of a newer format, whatever its message.
    public var isNewerFormat: Bool {
        if case .storage(let failure) = self { failure.kind == .newerFormat } else { false }
    }

    /// Whether this is unusable key material, whatever its message.
    public var isInvalidKeyMaterial: Bool {
        if case .invalidKeyMaterial = self { true } else { false }
    }

    /// Whether this is a key-source mismatch, whatever its message.
    public var isKeySourceMismatch: Bool {
        if case .keySourceMismatch = self { true } else { false }
    }

    /// Whether this is an insecure-permissions refusal, whatever its message.
    public var isInsecurePermissions: Bool {
        if case .insecurePermissions = self { true } else { false }
    }

    /// Whether this is undecodable data, whatever its message.
    public var isInvalidData: Bool {
        if case .invalidData = self { true } else { false }
    }
}

/// Whether `body` throws an integrity failure (and nothing else): a store read, write or check that
/// must report damage.
public func throwsIntegrityFailure(_ body: () throws -> Void) -> Bool {
    do {
        try body()
        return false
    } catch {
        return (error as? SecureStoreError)?.isIntegrityFailure == true
    }
}
