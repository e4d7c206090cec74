package import Domain

extension AuthenticationError {
    /// A store error as the session use cases see it: damage (an integrity failure) is
    /// ``AuthenticationError/storeDamaged(_:)``, a store that could not be read otherwise (locked,
    /// busy, the wrong key) is ``AuthenticationError/storeUnavailable(_:)``, and anything else a failed
    /// write. Neither of the first two is ever "signed out".
    package static func fromStore(_ error: SecureStoreError) -> AuthenticationError {
        if case .integrityFailure = error { return .storeDamaged(error.description) }
        return error.isUnavailable ? .storeUnavailable(error.description) : .storageFailed(error.description)
    }
}
