import Data
import Domain

/// Reads a passphrase from a file: its first line, without the newline, straight into wiped memory
/// (``PrivateFile``).
enum PassphraseFile {
    /// The first line of the file at `path`, without its line ending.
    /// - Throws: ``SecureStoreError/insecurePermissions(path:fix:)`` for a regular file that group or
    ///   others may read, ``SecureStoreError/invalidKeyMaterial(_:)`` when it cannot be read or its first
    ///   line is empty.
    static func readFirstLine(_ path: String) throws(SecureStoreError) -> SecretBytes {
        do throws(PrivateFile.Failure) {
            return try PrivateFile.firstLine(path)
        } catch {
            guard case .shared(let mode) = error else { throw .invalidKeyMaterial(error.reason("passphrase file", path)) }
            throw .insecurePermissions(
                path: path,
                fix: "group or others can read this passphrase file (mode \(mode)). Run `chmod 600 \(path)` and try again.")
        }
    }
}
