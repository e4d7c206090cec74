import StoreCore

/// The store's own name for each choice; kept here so the executable never sees `KeySource`.
extension KeyChoice {
    /// The infrastructure key source for this choice.
    var keySource: KeySource {
        switch self {
        case .passphrase(let passphrase): .passphrase(passphrase)
        case .keyFile(let path): .keyFile(path: path)
        case .environment(let variable): .environment(variable: variable)
        case .systemdCredential(let name): .systemdCredential(name: name)
        }
    }
}
