/// How a row's ciphertexts are laid out, chosen per store by its header's format version.
///
/// - ``separate`` (format 1): two ciphertexts, the attributes (``AttributeCodec``, padded to 64-byte
///   buckets) under the attributes key and the secret (padded likewise) under the data key, each with
///   its own nonce and tag.
/// - ``joint`` (format 2): one ciphertext in the `data` column and an empty `attrs` column: under the
///   data key, the attributes in their compact form (``CompactAttributeCodec``) and the secret, padded
///   together to a 64-byte bucket, with one nonce and one tag. An observer sees one length bucket
///   (of the two together) instead of two, and a row is 104 bytes smaller for a typical item, so five
///   fit a 4 KiB page where four did.
///
/// A store keeps its format for life, through key changes too (``KeyHierarchy/rewrap(_:to:)``): a
/// store of format 1 keeps writing ``separate`` rows, so the Hardtack that made it still reads it
/// (`export` and `import` move its items to a new store). Every build from format 2 on reads both
/// layouts, whatever the store's format, because the row itself says which it is (an empty `attrs`
/// column is a joint row). Format 3 writes joint rows too; it differs in its rows digests
/// (``RowsDigest/stored(_:keys:)``).
package enum RowFormat: Sendable {
    /// Two ciphertexts per row (format 1).
    case separate
    /// One ciphertext per row (format 2).
    case joint

    /// The layout a store writes, by its header's format version (joint from 2).
    package init(headerVersion: UInt8) {
        self = headerVersion >= 2 ? .joint : .separate
    }
}
