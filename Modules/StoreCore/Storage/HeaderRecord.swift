/// The store's header as a backend keeps it: the encoded header, its checksum and the master key
/// wrapped under the key-encryption key (see ``StoreHeader``). Nothing in it is secret.
package struct HeaderRecord: Equatable, Sendable {
    /// The encoded ``StoreHeader``.
    package var header: [UInt8]
    /// The checksum over the header and the wrapped key.
    package var checksum: [UInt8]
    /// The master key, sealed under the key-encryption key with the header as additional data.
    package var wrappedKey: [UInt8]

    /// A record from its three cells.
    package init(header: [UInt8], checksum: [UInt8], wrappedKey: [UInt8]) {
        self.header = header
        self.checksum = checksum
        self.wrappedKey = wrappedKey
    }
}
