/// The store format this version of Hardtack writes (docs/store.md describes each), for the project's
/// own tools that make stores of a newer format to see them refused.
@_spi(HardtackTools) public enum StoreFormat {
    /// The format of a store this version creates: the newest it reads.
    public static let current: UInt8 = StoreHeader.currentVersion
}
