import Foundation
import Testing

/// Shorthands the CLI tests share.
extension CLISandbox {
    /// The environment of a run unlocked by `passphrase`, at the cheap test-only Argon2 cost.
    static func passphrase(_ passphrase: String) -> [String: String] {
        ["HARDTACK_PASSPHRASE": passphrase, "HARDTACK_ARGON2_COST": "interactive"]
    }

    /// Adds a generic password and expects success.
    func addGeneric(
        service: String, account: String, secret: String, extra: [String] = [], environment: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let result = try await keychain(
            ["add-generic-password", "-s", service, "-a", account, "-w", secret] + extra, environment: environment)
        #expect(result.status == 0, "add failed: \(result.stderr)", sourceLocation: sourceLocation)
    }

    /// Writes a private (0600) file in the sandbox and returns its path.
    func privateFile(_ name: String, _ contents: String) throws -> String {
        let path = directory.file(name)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(contents.utf8), attributes: [.posixPermissions: 0o600]))
        return path
    }

    /// The permission bits of a file or directory, not following a final symbolic link.
    func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int)
    }
}
