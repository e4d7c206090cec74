import Data
import StoreCore

/// The store's header record in its two copies: table `meta` and table `meta_copy`, each a one-row
/// table on a b-tree page of its own, so that one destroyed page never takes the only copy of the
/// wrapped master key (and with it every item). Triggers on `meta` write the copy in the same
/// statement as every insert or update of `meta` (``SQLiteSchema/headerCopy``), whoever writes it, so
/// the two never differ after a commit.
///
/// Which copy unlocks the store:
/// - both sound (readable, checksum matching) and equal: that record;
/// - one sound, the other unreadable (its page fails its checksum, its row or table is missing, its
///   checksum does not match): the sound one, and the damage is reported by `verify`;
/// - both sound but different: neither. A difference is never damage the triggers let through; it is
///   an edit of one copy (or both), such as an old wrapped key of an old passphrase put back. Choosing
///   either, or the one the offered key opens, would let that edit choose the key that opens the store,
///   so the store is refused as damaged (`salvage` still recovers every item whose ciphertexts
///   authenticate under the key the user gives it).
struct SQLiteHeaderCopies {
    /// One copy as read.
    enum Copy {
        /// Read, and its checksum matches.
        case sound(HeaderRecord)
        /// Its table does not exist (for `meta_copy`: a store made before it, until its next writable open).
        case noTable
        /// It cannot be used: why in words, and the error an open without another copy throws.
        case damaged(String, SecureStoreError)
    }

    /// The names of the two tables, first copy first.
    static let tables = ["meta", "meta_copy"]

    /// `meta`, as read.
    let first: Copy
    /// `meta_copy`, as read.
    let second: Copy

    /// Reads both copies.
    /// - Throws: what reading the schema throws (page 1 damaged, a busy lock), and
    ///   ``SecureStoreError/storage(_:)`` for a header of a newer format.
    static func read(_ connection: SQLiteConnection) throws(SecureStoreError) -> SQLiteHeaderCopies {
        SQLiteHeaderCopies(first: try read(tables[0], connection), second: try read(tables[1], connection))
    }

    /// What is wrong with the header's copies of the store file at `path`, read through a read-only
    /// connection; `nil` when nothing is, or when they cannot be read at all (the schema page damaged).
    static func inspect(path: String) -> String? {
        guard let connection = try? SQLiteConnection(path: path, access: .readOnly),
            let copies = try? read(connection)
        else { return nil }
        return copies.damage
    }

    private static func read(_ table: String, _ connection: SQLiteConnection) throws(SecureStoreError) -> Copy {
        guard try SQLiteSchema.hasTable(table, connection) else { return .noTable }
        var found: HeaderRecord?
        do throws(SecureStoreError) {
            let statement = try connection.prepared("SELECT header, checksum, wrapped_key FROM \(table) WHERE id = 1")
            defer { statement.reset() }
            if try statement.step() {
                found = HeaderRecord(
                    header: statement.bytes(at: 0), checksum: statement.bytes(at: 1), wrappedKey: statement.bytes(at: 2))
            }
        } catch .integrityFailure(let what) {
            return .damaged("cannot be read (\(what))", .integrityFailure(what))
        }
        guard let record = found else { return .damaged("has no row", missingHeader) }
        do throws(SecureStoreError) {
            _ = try StoreHeader(decoding: record.header, checksum: record.checksum, wrappedKey: record.wrappedKey)
        } catch .integrityFailure(let what) {
            return .damaged("does not check (\(what))", .integrityFailure(what))
        }
        return .sound(record)
    }

    /// The record to unlock the store with (see the type's rules).
    /// - Throws: ``SecureStoreError/integrityFailure(_:)`` when no copy is sound, or when the two differ.
    func record() throws(SecureStoreError) -> HeaderRecord {
        switch (first, second) {
        case (.sound(let record), .sound(let copy)):
            guard record == copy else {
                throw .integrityFailure(
                    "the two copies of the store header differ (tables meta and meta_copy): one was edited or put "
                        + "back from an older state, and the store is not opened with either; a salvage copies "
                        + "every item that authenticates under your key into a new store")
            }
            return record
        case (.sound(let record), _), (_, .sound(let record)):
            return record
        case (.noTable, .noTable):
            throw Self.missingHeader
        case (.damaged(_, let error), .noTable), (.noTable, .damaged(_, let error)):
            throw error
        case (.damaged(let first, _), .damaged(let second, _)):
            throw .integrityFailure(
                "both copies of the store header are damaged (meta \(first); meta_copy \(second)), so no item can be "
                    + "decrypted; a salvage tries every copy left in the file")
        }
    }

    /// What is wrong with the copies, in words (which one is damaged, and that the other is sound);
    /// `nil` when both are sound and equal, or for a store made before the copy whose `meta` is sound.
    var damage: String? {
        switch (first, second) {
        case (.sound(let record), .sound(let copy)):
            return record == copy ? nil : "its two copies (tables meta and meta_copy) differ: neither is used"
        case (.sound, .noTable):
            return nil
        case (.sound, .damaged(let why, _)):
            return "its second copy (table meta_copy) \(why); its first copy (table meta) is sound"
        case (.noTable, .sound):
            return "its first copy (table meta) is missing; its second copy (table meta_copy) is sound"
        case (.damaged(let why, _), .sound):
            return "its first copy (table meta) \(why); its second copy (table meta_copy) is sound"
        case (.noTable, .noTable):
            return "it is missing (no table meta or meta_copy)"
        case (.damaged(let why, _), .noTable):
            return "its only copy (table meta) \(why)"
        case (.noTable, .damaged(let why, _)):
            return "its first copy (table meta) is missing; its second copy (table meta_copy) \(why)"
        case (.damaged(let first, _), .damaged(let second, _)):
            return "both copies are damaged: meta \(first); meta_copy \(second)"
        }
    }

    /// A database with tables but no header: a store whose header was deleted, or not a store at all.
    static let missingHeader = SecureStoreError.integrityFailure(
        "the store header is missing (the file was damaged, or is not a Hardtack store)")
}
