import Data
import Domain
import Foundation

/// Reads the store's location from a file (`--store-file`): its first line (``PrivateFile``), so that a
/// PostgreSQL URI's password stays off the command line, where other users read it in `/proc/PID/cmdline`.
enum StoreFile {
    /// The first line of the file at `path`, without its line ending or surrounding spaces.
    /// - Throws: ``CommandFailure/store(_:)`` with ``SecureStoreError/insecurePermissions(path:fix:)`` for
    ///   a regular file that group or others may read or write; ``CommandFailure/usage(_:)`` when it
    ///   cannot be read or its first line is empty or too long.
    static func readFirstLine(_ path: String) throws(CommandFailure) -> String {
        let line: SecretBytes
        do throws(PrivateFile.Failure) {
            line = try PrivateFile.firstLine(path)
        } catch {
            guard case .shared(let mode) = error else { throw .usage(error.reason("store file", path)) }
            throw .store(
                .insecurePermissions(
                    path: path,
                    fix: "group or others can read or change this store file (mode \(mode)), which may hold a "
                        + "database password. Run `chmod 600 \(path)` and try again."))
        }
        guard let revealed = line.revealedString() else {
            throw .usage("the first line of the store file \(path) is not UTF-8 text")
        }
        let text = revealed.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { throw .usage("the first line of the store file \(path) is empty") }
        return text
    }
}
