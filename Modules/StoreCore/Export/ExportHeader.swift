import Data
import Domain

/// An export file's header, and how it tells a wrong export key from a header that was changed.
///
/// Versions 2 and 3 (3, written, also pads the item messages: ``ExportFormat``) hold, after the cost
/// and salt, a key check and a header MAC, both keyed hashes under a check key: for a key file, a key
/// from the file alone (no header byte goes into it); for a passphrase, the stream key (Argon2id needs
/// the salt and cost). The right key reproduces the check whatever else changed, and the MAC covers
/// every other header byte; so a check that holds with a MAC that fails, or the reverse, is a changed
/// header, and only both failing is a wrong key (or, for a passphrase, a changed salt or cost, which
/// no key can tell apart from a wrong passphrase). Version 1 (read only) has the key check alone.
struct ExportHeader {
    /// The layout version.
    let version: UInt8
    /// The key kind: 1, a passphrase; 2, a key file.
    let kind: UInt8
    /// The Argon2id cost (a passphrase's).
    let cost: Argon2Cost
    /// The salt.
    let salt: [UInt8]
    /// The key check.
    let check: [UInt8]
    /// The header MAC (empty in version 1).
    let mac: [UInt8]
    /// The secretstream header.
    let streamHeader: [UInt8]

    /// The header's size in `version`.
    static func size(version: UInt8) -> Int {
        ExportFormat.magic.count + 2 + 16 + ExportFormat.saltBytes + ExportFormat.checkBytes
            + (version >= 2 ? ExportFormat.checkBytes : 0) + SecretStream.headerBytes
    }

    /// The encoded header, the additional data of every message.
    var encoded: [UInt8] { unchecked(includingCheck: true) }

    /// The header's bytes without the MAC (and, for the MAC, without the check).
    private func unchecked(includingCheck: Bool) -> [UInt8] {
        var bytes = ExportFormat.magic + [version, kind]
        ExportFormat.append(cost.opsLimit, to: &bytes)
        ExportFormat.append(UInt64(cost.memLimit), to: &bytes)
        bytes += salt
        if includingCheck { bytes += check + mac }
        return bytes + streamHeader
    }

    /// A new header of `version` (2 or later: the layout of this header is theirs) for `key` with the
    /// stream's header; its check and MAC under `streamKey`.
    static func make(
        version: UInt8, key: ExportKey, cost: Argon2Cost, salt: [UInt8], streamKey: SecureKey, streamHeader: [UInt8]
    ) throws(SecureStoreError) -> ExportHeader {
        let checkKey = try checkKey(key, streamKey: streamKey)
        var header = ExportHeader(
            version: version, kind: key.kindCode, cost: cost, salt: salt, check: [], mac: [],
            streamHeader: streamHeader)
        let check = try keyCheck(checkKey)
        let mac = try header.headerMAC(checkKey)
        header = ExportHeader(
            version: header.version, kind: header.kind, cost: cost, salt: salt, check: check, mac: mac,
            streamHeader: streamHeader)
        return header
    }

    /// The header at the start of `bytes`.
    /// - Throws: an integrity failure for a file that is not an export or a header that cannot be one,
    ///   ``SecureStoreError/storage(_:)`` (newer format) for a version this code does not read.
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(SecureStoreError) -> ExportHeader {
        let damaged = SecureStoreError.integrityFailure("the file is not a Hardtack export, or its header was changed")
        let magic = ExportFormat.magic.count
        guard bytes.count > magic + 1, Array(bytes[0..<magic]) == ExportFormat.magic else { throw damaged }
        let version = bytes[magic]
        guard version <= ExportFormat.version else {
            throw .storage(
                .store(
                    "the export has format version \(version), which this version of Hardtack (versions 1 to \(ExportFormat.version)) "
                        + "cannot read: it was written by a newer one, or its header was changed", kind: .newerFormat))
        }
        // A single changed bit never turns one valid kind (1, 2) into the other.
        guard version >= 1, bytes.count >= size(version: version), bytes[magic + 1] == 1 || bytes[magic + 1] == 2
        else { throw damaged }
        var offset = magic + 2
        guard let ops = ExportFormat.read(bytes, at: offset, width: 8),
            let memory = ExportFormat.read(bytes, at: offset + 8, width: 8)
        else { throw damaged }
        let cost = Argon2Cost(opsLimit: ops, memLimit: memory)
        // A crafted header must not make the reader spend hours or gigabytes.
        guard cost.isWithinBounds else { throw damaged }
        offset += 16
        func take(_ count: Int) -> [UInt8] {
            defer { offset += count }
            return Array(bytes[offset..<(offset + count)])
        }
        let salt = take(ExportFormat.saltBytes)
        let check = take(ExportFormat.checkBytes)
        let mac = version >= 2 ? take(ExportFormat.checkBytes) : []
        return ExportHeader(
            version: version, kind: bytes[magic + 1], cost: cost, salt: salt, check: check, mac: mac,
            streamHeader: take(SecretStream.headerBytes))
    }

    /// The stream key `key` yields for this header, once its check (and MAC) hold.
    /// - Throws: ``SecureStoreError/keySourceMismatch(expected:)`` for the other kind of key,
    ///   ``SecureStoreError/wrongKey`` when neither check nor MAC holds (a wrong key, or a changed salt
    ///   or cost under a passphrase), an integrity failure when one holds and the other not.
    func streamKey(_ key: ExportKey) throws(SecureStoreError) -> SecureKey {
        guard kind == key.kindCode else {
            throw .keySourceMismatch(expected: kind == 1 ? .exportPassphrase : .exportKeyFile)
        }
        let streamKey = try ExportFormat.streamKey(key, salt: salt, cost: cost)
        guard version >= 2 else {
            let expected = try Sodium.keyedHash(
                Array("HTK-export-check".utf8) + salt, key: streamKey, length: check.count)
            guard Sodium.constantTimeEquals(expected, check) else { throw .wrongKey }
            return streamKey
        }
        let checkKey = try Self.checkKey(key, streamKey: streamKey)
        let checkHolds = Sodium.constantTimeEquals(try Self.keyCheck(checkKey), check)
        let macHolds = Sodium.constantTimeEquals(try headerMAC(checkKey), mac)
        switch (checkHolds, macHolds) {
        case (true, true): return streamKey
        case (false, false): throw .wrongKey
        default: throw .integrityFailure("the export's header was changed (the key is right: its check holds, its MAC not)")
        }
    }

    /// The key of the check and MAC: the key file's own (no header byte in it), or the stream key.
    private static func checkKey(_ key: ExportKey, streamKey: SecureKey) throws(SecureStoreError) -> SecureKey {
        guard case .keyFile(let path) = key else { return streamKey }
        let material = try KeyMaterial.rawKey(from: .keyFile(path: path), creating: false)
        let checkKey = try SecureKey()
        try checkKey.fill { out throws(SecureStoreError) in
            try Sodium.keyedHash(Array("HTK-export-check-key".utf8), key: material, into: out, length: SecureKey.byteCount)
        }
        return checkKey
    }

    /// The key check: a keyed hash that only the right key reproduces.
    private static func keyCheck(_ checkKey: SecureKey) throws(SecureStoreError) -> [UInt8] {
        try Sodium.keyedHash(Array("HTK-export-check-2".utf8), key: checkKey, length: ExportFormat.checkBytes)
    }

    /// The MAC of every header byte but the check and the MAC.
    private func headerMAC(_ checkKey: SecureKey) throws(SecureStoreError) -> [UInt8] {
        try Sodium.keyedHash(
            Array("HTK-export-header".utf8) + unchecked(includingCheck: false), key: checkKey,
            length: ExportFormat.checkBytes)
    }
}
