#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
public import Data
import Domain
import Foundation

/// Writes every item a store handle can see into one encrypted export file, and reads one back.
///
/// The file is protected by its own key (``ExportKey``), not the store's: libsodium's secretstream
/// under a key from Argon2id (at least MODERATE) or a key file, with a versioned header bound to every
/// message. Reading authenticates the whole file (its final message and item count included) before
/// anything is returned, so a file cut short, reordered or changed anywhere is refused as a whole.
public enum StoreExport {
    /// Writes every item `store` can see (every class, every access group of the handle) to a new
    /// file at `path` (0600, written to a temporary name, then linked into place, which fails when
    /// `path` exists, or with `replacing` renamed over it); `progress` is called with (step, done,
    /// total) after each item read from the store (on Hardtack's own stores, which count their rows
    /// first) and after each item written. Returns how many items were written.
    /// - Throws: the store's errors, and ``SecureStoreError/storage(_:)`` when the file cannot be written
    ///   or `path` exists without `replacing` (nothing is then left behind, and `path` is untouched).
    public static func write(
        from store: any SecureItemStore, to path: String, key: ExportKey, cost: Argon2Cost = .moderate,
        replacing: Bool = false, progress: (ExportStep, Int, Int) -> Void = { _, _, _ in }
    ) throws(SecureStoreError) -> Int {
        try write(
            from: store, to: path, key: key, cost: cost, replacing: replacing, version: ExportFormat.version,
            progress: progress)
    }

    /// ``write(from:to:key:cost:replacing:progress:)`` in layout `version`: 3 (``ExportFormat/version``)
    /// or 2, whose item messages are not padded, as every build before version 3 wrote them; kept so
    /// that tests make such files with the code that wrote them, and check they are still read.
    package static func write(
        from store: any SecureItemStore, to path: String, key: ExportKey, cost: Argon2Cost = .moderate,
        replacing: Bool = false, version: UInt8, progress: (ExportStep, Int, Int) -> Void = { _, _, _ in }
    ) throws(SecureStoreError) -> Int {
        precondition((2...ExportFormat.version).contains(version), "an export layout this code writes")
        let padded = version >= ExportFormat.firstPaddedVersion
        let items = try readAll(store, progress: progress)
        let salt = Sodium.randomBytes(ExportFormat.saltBytes)
        let streamKey = try ExportFormat.streamKey(key, salt: salt, cost: cost)
        let writer = try SecretStream.Writer(key: streamKey)
        let header = try ExportHeader.make(
            version: version, key: key, cost: cost, salt: salt, streamKey: streamKey, streamHeader: writer.header
        ).encoded
        var file = header
        for (index, item) in items.enumerated() {
            guard let attributes = item.attributes, let data = item.data else { continue }
            let encoded = AttributeCodec.encode(attributes)
            let length = 1 + 4 + encoded.count + 4 + data.count
            var record: [UInt8] = []
            // The whole record's room at once: growing it would leave copies of the secret behind.
            record.reserveCapacity(padded ? Sodium.paddedLength(length, block: ExportFormat.paddingBlock) : length)
            record.append(item.itemClass.rawValue)
            ExportFormat.append(UInt32(encoded.count), to: &record)
            record += encoded
            ExportFormat.append(UInt32(data.count), to: &record)
            data.withUnsafeBytes { record.append(contentsOf: $0) }
            if padded { ExportFormat.pad(&record) }
            defer { record.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
            let box = try seal(record, writer, header: header, final: false)
            ExportFormat.append(UInt32(box.count), to: &file)
            file += box
            progress(.written, index + 1, items.count)
        }
        var end = ExportFormat.endMark
        ExportFormat.append(UInt64(items.count), to: &end)
        let final = try seal(end, writer, header: header, final: true)
        ExportFormat.append(UInt32(final.count), to: &file)
        file += final
        let temporary = path + ".tmp-\(getpid())"
        try FileSecurity.createPrivateFile(temporary, contents: file)
        // link(2) never replaces an existing name: a file that appeared since the caller looked is kept.
        guard (replacing ? rename(temporary, path) : link(temporary, path)) == 0 else {
            let code = errno
            unlink(temporary)
            if code == EEXIST {
                throw .storage(.posix("the export file \(path) already exists and was left as it was", errno: code))
            }
            throw .storage(.posix("cannot write the export file \(path)", errno: code))
        }
        if !replacing { unlink(temporary) }
        return items.count
    }

    /// Every item `store` can see, with its attributes and data. A Hardtack store is read under one
    /// hold of its lock, its rows counted first so that `progress` has a total while items are decrypted.
    private static func readAll(_ store: any SecureItemStore, progress: (ExportStep, Int, Int) -> Void)
        throws(SecureStoreError) -> [StoredItem]
    {
        var items: [StoredItem] = []
        guard let engineBacked = store as? any EngineBackedStore else {
            for itemClass in ItemClass.allCases {
                do {
                    items += try store.find(try ItemAttributes(itemClass, [:]), limit: .all, returning: [.attributes, .data])
                } catch .itemNotFound {
                    continue
                }
            }
            return items
        }
        try engineBacked.engine.withEngine { engine throws(SecureStoreError) in
            var total = 0
            for itemClass in ItemClass.allCases { total += try engine.countRows(itemClass) }
            for itemClass in ItemClass.allCases {
                let before = items.count
                do throws(SecureStoreError) {
                    items += try engine.find(
                        try ItemAttributes(itemClass, [:]), limit: .all, returning: [.attributes, .data]
                    ) { read in progress(.read, before + read, max(total, before + read)) }
                } catch .itemNotFound {
                    continue
                }
            }
        }
        return items
    }

    /// Reads and authenticates the whole export file at `path`.
    /// - Throws: ``SecureStoreError/wrongKey`` for a wrong passphrase or key file,
    ///   ``SecureStoreError/integrityFailure(_:)`` for a file that is not an export, or was cut short,
    ///   reordered or changed, and ``SecureStoreError/storage(_:)`` when it cannot be read.
    public static func read(from path: String, key: ExportKey) throws(SecureStoreError) -> [ExportedItem] {
        let bytes = try readFile(path)
        return try bytes.withUnsafeBytes { raw in
            Result { () throws(SecureStoreError) in try parse(raw, key: key) }
        }.get()
    }

    /// The largest export file read (a store's worth of items is far smaller).
    static let maximumFileBytes = 1 << 30

    /// The bytes of the file at `path`, read with the system's calls (Foundation's whole-file read
    /// leaked its buffer for an empty file under LeakSanitizer).
    private static func readFile(_ path: String) throws(SecureStoreError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .storage(.posix("cannot read the export file \(path)", errno: errno)) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { readFromDescriptor(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .storage(.posix("cannot read the export file \(path)", errno: errno))
            }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
            guard bytes.count <= maximumFileBytes else {
                throw .integrityFailure("the file is larger than any export (over 1 GiB)")
            }
        }
    }

    /// `bytes` sealed as the stream's next message.
    private static func seal(_ bytes: [UInt8], _ writer: SecretStream.Writer, header: [UInt8], final: Bool)
        throws(SecureStoreError) -> [UInt8]
    {
        try bytes.withUnsafeBytes { raw in
            Result { () throws(SecureStoreError) in try writer.seal(raw, additionalData: header, final: final) }
        }.get()
    }

    private static func parse(_ bytes: UnsafeRawBufferPointer, key: ExportKey) throws(SecureStoreError) -> [ExportedItem] {
        let parsed = try ExportHeader.parse(bytes)
        let header = parsed.encoded
        var offset = header.count
        let streamKey = try parsed.streamKey(key)
        let streamHeader = parsed.streamHeader
        let reader = try SecretStream.Reader(key: streamKey, header: streamHeader)
        var items: [ExportedItem] = []
        while true {
            guard let length = ExportFormat.read(bytes, at: offset, width: 4), length <= ExportFormat.maximumFrame,
                offset + 4 + Int(length) <= bytes.count
            else { throw .integrityFailure("the export file was cut short") }
            let box = Array(bytes[(offset + 4)..<(offset + 4 + Int(length))])
            offset += 4 + Int(length)
            let (message, final) = try reader.open(box, additionalData: header)
            if final {
                let count = try message.withUnsafeBytes { raw throws(SecureStoreError) -> UInt64 in
                    guard raw.count == ExportFormat.endMark.count + 8, Array(raw[0..<3]) == ExportFormat.endMark,
                        let count = ExportFormat.read(raw, at: 3, width: 8)
                    else { throw .integrityFailure("the export's last message is malformed") }
                    return count
                }
                guard count == UInt64(items.count), offset == bytes.count else {
                    throw .integrityFailure("the export file was changed after its last item")
                }
                return items
            }
            let padded = parsed.version >= ExportFormat.firstPaddedVersion
            items.append(
                try message.withUnsafeBytes { raw throws(SecureStoreError) in
                    guard padded else { return try item(raw) }
                    guard let count = ExportFormat.unpaddedCount(raw) else {
                        throw .integrityFailure("an item in the export is malformed (its padding)")
                    }
                    return try item(UnsafeRawBufferPointer(rebasing: raw[0..<count]))
                })
        }
    }

    /// One item's record.
    private static func item(_ raw: UnsafeRawBufferPointer) throws(SecureStoreError) -> ExportedItem {
        let malformed = SecureStoreError.integrityFailure("an item in the export is malformed")
        guard raw.count >= 9, let itemClass = ItemClass(rawValue: raw[0]),
            let attributesLength = ExportFormat.read(raw, at: 1, width: 4), 5 + Int(attributesLength) + 4 <= raw.count,
            let dataLength = ExportFormat.read(raw, at: 5 + Int(attributesLength), width: 4),
            9 + Int(attributesLength) + Int(dataLength) == raw.count
        else { throw malformed }
        let attributes = try AttributeCodec.decode(UnsafeRawBufferPointer(rebasing: raw[5..<(5 + Int(attributesLength))]))
        guard attributes.itemClass == itemClass else { throw malformed }
        let start = 9 + Int(attributesLength)
        let data = SecretBytes(count: Int(dataLength)) { out in
            if dataLength > 0 { out.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[start..<(start + Int(dataLength))])) }
        }
        return ExportedItem(attributes: attributes, data: data)
    }
}

/// `read(2)`, outside ``StoreExport``, whose own `read(from:key:)` would shadow it.
private func readFromDescriptor(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
