import Foundation
import Testing

/// Keyed values are compared in constant time (issue 25, 8), read from the sources: a test that times a
/// comparison would be flaky, so these look for the plain comparison itself.
///
/// - In the store (StoreCore, SQLiteStore, PostgreSQLStore, MemoryStore), a keyed BLAKE2b value held as
///   bytes (an export's key check and header MAC, a keyed hash) is compared only through
///   `Sodium.constantTimeEquals`; in Data and the gateway, a value derived from a secret or guarding
///   one (`state`, `nonce`, a PKCE verifier or challenge, a session id or secret, a seal, a `jti`) only
///   through the layer's comparison (`SecretBytes.constantTimeEquals`, `SecretText.equal`,
///   `GatewaySeal.equal`): ``KeyedComparisonScan`` finds `==`, `!=`, `elementsEqual` or `starts(with:)`
///   on them by name, and each finding names its file and line.
/// - Blind indexes, row hashes and rows digests are compared with `==` everywhere (index cells, the
///   rows digest check, dictionary keys), so their own `==` is what must be constant-time: it must go
///   through `Sodium.constantTimeEquals` (a rows digest's, through its row hash's), never compare their
///   words.
///
/// Not flagged, and fine: comparisons with `nil` or a literal; public values (row ids, counts, format
/// versions, the unkeyed BLAKE2b checksum of the store header and the CRC-32C of pages, which hash bytes
/// the file holds anyway); and SQL that looks a row up by its blind index (`WHERE uniq = ?`), which
/// is the database's lookup, not a comparison in our code.
@Suite struct ConstantTimeComparisonTests {
    /// The store's targets.
    static let storeTargets = ["Modules/StoreCore", "Modules/SQLiteStore", "Modules/PostgreSQLStore", "Modules/MemoryStore"]
    /// The app's targets that handle sign-in and session secrets.
    static let appTargets = ["Modules/Data", "Modules/Gateway"]

    /// `file:line: finding` for every plain comparison of a keyed name in `targets`.
    private func plainComparisons(in targets: [String], scan: KeyedComparisonScan) -> [String] {
        var found: [String] = []
        for target in targets {
            let files = SourceTree.swiftFiles(in: target)
            #expect(!files.isEmpty, "no sources in \(target)")
            for file in files {
                for (number, line) in file.lines.enumerated() {
                    for finding in scan.findings(in: SourceTree.code(of: line)) {
                        found.append("\(file.path):\(number + 1): \(finding): \(line.trimmingCharacters(in: .whitespaces))")
                    }
                }
            }
        }
        return found
    }

    @Test func theStoreComparesKeyedBytesOnlyInConstantTime() {
        let found = plainComparisons(in: Self.storeTargets, scan: .store)
        #expect(found.isEmpty, "keyed values compared with a plain comparison (use Sodium.constantTimeEquals): \(found)")
    }

    @Test func dataAndTheGatewayCompareSecretsOnlyInConstantTime() {
        let found = plainComparisons(in: Self.appTargets, scan: .app)
        let advice = "use SecretBytes.constantTimeEquals, SecretText.equal or GatewaySeal.equal"
        #expect(found.isEmpty, "secret-derived values compared with a plain comparison (\(advice)): \(found)")
    }

    /// The body of `static func ==` in the file at `path`, from its declaration to its closing brace.
    private func equalityBody(_ path: String) -> String? {
        guard let file = SourceTree.swiftFiles(in: "Modules/StoreCore").first(where: { $0.path == path }),
            let start = file.lines.firstIndex(where: { $0.contains("static func == (") })
        else { return nil }
        let indent = file.lines[start].prefix { $0 == " " }
        guard let end = file.lines[start...].firstIndex(where: { $0 == indent + "}" }) else { return nil }
        return file.lines[start...end].map { String(SourceTree.code(of: $0)) }.joined(separator: "\n")
    }

    @Test func theKeyedTypesEqualityIsConstantTime() throws {
        for path in ["Modules/StoreCore/Items/BlindIndex.swift", "Modules/StoreCore/Items/RowHash.swift"] {
            let body = try #require(equalityBody(path), "no `static func ==` in \(path)")
            #expect(body.contains("Sodium.constantTimeEquals("), "\(path): `==` must compare through Sodium.constantTimeEquals")
            #expect(!body.contains("words"), "\(path): `==` compares the words themselves, not in constant time")
        }
        // A rows digest: its accumulator through RowHash's `==`, then its count (public); nothing else.
        let digest = try #require(equalityBody("Modules/StoreCore/Items/RowsDigest.swift"))
        #expect(digest.contains("lhs.accumulator == rhs.accumulator"))
        let compared = digest.matches(of: /lhs\.(\w+)/).map { String($0.output.1) }
        #expect(Set(compared) == ["accumulator", "count"], "RowsDigest's `==` compares \(compared)")
    }

    @Test func theScanFindsWhatItLooksForAndNothingElse() {
        // It would pass vacuously if it could not see a plain comparison: it finds the ones it is for.
        let store: [Substring] = [
            "let macHolds = try headerMAC(checkKey) == mac",
            "guard try Sodium.keyedHash(message, key: key, length: check.count) == check",
            "if header.check != expected.check { throw .wrongKey }",
            "let holds = computed.elementsEqual(header.mac)",
        ]
        for line in store { #expect(!KeyedComparisonScan.store.findings(in: line).isEmpty, "not found: \(line)") }
        let app: [Substring] = [
            "guard sid == cookie.sessionID else {",
            "guard let sent = claims.nonce, sent == nonce else {",
            "if fields[\"state\"] != request.state.revealedString() {",
            "guard Array(verifier.utf8).starts(with: expected) else {",
            "guard let sid, Array(sid.utf8) == Array(cookie.sessionID.utf8) else {",
            "guard let state = fields[\"state\"], SecretBytes(utf8: state) == request.state else {",
        ]
        for line in app { #expect(!KeyedComparisonScan.app.findings(in: line).isEmpty, "not found: \(line)") }
        // And not comparisons with nil or a literal, lengths, or values of other names.
        let fine: [Substring] = [
            "if check == \"ok\", !digestMatches {",
            "if nonce != nil { throw .invalidResponse(\"no id_token\") }",
            "guard check.count == 16, mac.isEmpty == false else {",
            "guard Sodium.constantTimeEquals(expected, check) else { throw .wrongKey }",
            "return try group == row.group && keys.uniqueIndex(attributes, group: group) == row.unique",
            "guard response.status == 200 else {",
            "guard bytes.count > magic + 1, Array(bytes[0..<magic]) == ExportFormat.magic else { throw damaged }",
        ]
        for line in fine {
            #expect(KeyedComparisonScan.store.findings(in: line).isEmpty, "flagged: \(line)")
            #expect(KeyedComparisonScan.app.findings(in: line).isEmpty, "flagged: \(line)")
        }
    }
}
