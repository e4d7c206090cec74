import Foundation
import Testing

/// Where code may be, as the layering lesson says: sessions are written only by the use cases, the inner
/// layers carry facts and never the command line's words, and the executable asks the composition root
/// for what it needs instead of building repositories, gateways or stores itself.
@Suite struct LayeringTests {
    /// The targets that make up the app core and the store: what a backend embeds.
    static let innerTargets = [
        "Modules/Domain", "Modules/Data", "Modules/StoreCore", "Modules/SQLiteStore", "Modules/PostgreSQLStore",
        "Modules/MemoryStore",
    ]

    @Test func noSessionIsWrittenOutsideTheUseCases() {
        // The port's writes. Its adapter (Data's repository) implements them; only the use cases call them.
        let writes = [
            ".replace(with:", ".completeRefresh(", ".deleteIfCurrent(", ".markRefreshSent(", ".claimRefresh(",
            ".releaseRefresh(", ".delete()", "addSessions(",
        ]
        // The port's implementations: the store's repository, and the gateway's, which seals the tokens
        // on their way to it and passes each call on.
        let implementations = ["Modules/Data/Session/", "Modules/Gateway/Session/SealedSessionRepository.swift"]
        var found: [String] = []
        for file in SourceTree.swiftFiles(in: "Modules")
        where !file.path.hasPrefix("Modules/Domain/UseCases/") && !implementations.contains(where: { file.path.hasPrefix($0) }) {
            for (number, line) in file.lines.enumerated() {
                let code = SourceTree.code(of: line)
                for write in writes where code.contains(write) { found.append("\(file.path):\(number + 1): \(write)") }
            }
        }
        #expect(found.isEmpty, "sessions written outside the use cases: \(found)")
        // The rule holds something: the use cases do write sessions.
        let useCases = SourceTree.swiftFiles(in: "Modules/Domain/UseCases")
        #expect(useCases.contains { $0.lines.contains { $0.contains("repository.replace(with:") } })
    }

    @Test func theInnerLayersCarryNoCommandLineWords() {
        // A command (`hardtack signin`, `hardtack keychain salvage`), a long option (`--flow`) or one of the
        // keychain verbs' short options (`-U`, `-w`) in a string the inner layers show.
        let pattern = try! Regex(#"hardtack (signin|signout|keychain|status|accounts|me|refresh|serve|demo|gateway)\b|(^|[\s(`'])--[a-z]|(^|[\s(`'])-[UwA-Za-z]\b(?!-)"#)
        var found: [String] = []
        for target in Self.innerTargets {
            let files = SourceTree.swiftFiles(in: target)
            #expect(!files.isEmpty, "no sources in \(target)")
            for file in files {
                for (number, line) in file.lines.enumerated() {
                    for literal in SourceTree.stringLiterals(in: line) where literal.contains(pattern) {
                        found.append("\(file.path):\(number + 1): \"\(literal)\"")
                    }
                }
            }
        }
        #expect(found.isEmpty, "command-line words in the inner layers: \(found)")
    }

    @Test func theWordCheckFindsTheWordsItLooksFor() {
        // The scan above would pass vacuously if it could not see a literal: it sees the executable's advice.
        let advice = SourceTree.swiftFiles(in: "Modules/hardtack/Support").first { $0.path.hasSuffix("Advice.swift") }
        let literals = advice?.lines.flatMap { SourceTree.stringLiterals(in: $0) } ?? []
        #expect(literals.contains { $0.contains("hardtack keychain salvage --to NEW") })
        #expect(SourceTree.stringLiterals(in: #"let a = "x -U y" // "--not-this""#) == ["x -U y"])
    }

    @Test func theExecutableBuildsNoRepositoryGatewayOrStore() {
        let built = [
            "SecureStoreSessionRepository", "AuthenticationGateway(", "ProfileAPI(", "SQLiteSecureItemStore",
            "PostgreSQLSecureItemStore", "MemorySecureItemStore", "EmbeddedAuthServer",
        ]
        var found: [String] = []
        for file in SourceTree.swiftFiles(in: "Modules/hardtack") {
            for (number, line) in file.lines.enumerated() {
                let code = SourceTree.code(of: line)
                for name in built where code.contains(name) { found.append("\(file.path):\(number + 1): \(name)") }
            }
        }
        #expect(found.isEmpty, "the executable builds what the composition root should: \(found)")
    }

    @Test func theProductionRootImportsNoDevelopmentCode() {
        var found: [String] = []
        for file in SourceTree.swiftFiles(in: "Modules/Composition") {
            for line in file.lines where line.contains("import Development") { found.append("\(file.path): \(line)") }
        }
        #expect(found.isEmpty, "\(found)")
        #expect(!SourceTree.swiftFiles(in: "Modules/Composition").isEmpty)
    }
}
