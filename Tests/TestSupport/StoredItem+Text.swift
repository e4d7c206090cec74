public import Data

extension StoredItem {
    /// The item's data as text, for assertions.
    public var text: String? { data?.text }

    /// One string attribute, for assertions.
    public func string(_ name: AttributeName) -> String? { attributes?.string(name) }
}
