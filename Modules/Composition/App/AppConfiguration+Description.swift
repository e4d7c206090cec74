import Foundation

/// A configuration as text, safe to log: the store as ``StoreConfiguration`` shows itself (no password,
/// no key), the server without any password in its URL, the contract, client id and account. `print`,
/// string interpolation, `String(reflecting:)` and `dump` all show this.
extension AppConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The store, server, contract, client id and account.
    public var description: String {
        "AppConfiguration(store: \(store), server: \(serverText), contract: \(contract.rawValue), "
            + "clientID: \(clientID), account: \(account))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The store, server, contract, client id and account, for `dump` and debuggers.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "store": store, "server": serverText, "contract": contract.rawValue, "clientID": clientID,
                "account": account.description,
            ])
    }

    /// The server as text: its URL with any password replaced by `***`, or that it is in this process.
    private var serverText: String {
        switch server {
        case .remote(let url):
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), components.password != nil
            else { return url.absoluteString }
            components.password = "***"
            return components.string ?? "(a URL that cannot be shown)"
        case .inProcess: return "in process"
        }
    }
}
