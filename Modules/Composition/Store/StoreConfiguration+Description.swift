/// A configuration as text, safe to log: the store's location without its password (``displayLocation``)
/// and the kind of key, never a passphrase, a key or a PostgreSQL password. `print`, string
/// interpolation, `String(reflecting:)` and `dump` all show this.
extension StoreConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The location (redacted), the kind of key and the access groups.
    public var description: String {
        "StoreConfiguration(store: \(displayLocation), key: \(key.summary), accessGroups: \(accessGroups))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The redacted location, the kind of key and the access groups, for `dump` and debuggers.
    public var customMirror: Mirror {
        Mirror(self, children: ["store": displayLocation, "key": key.summary, "accessGroups": accessGroups])
    }
}
