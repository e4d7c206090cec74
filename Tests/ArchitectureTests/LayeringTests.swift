import Foundation
import Testing

/// Where code may be, as the layering lesson says: sessions are written only by the use cases, the inner
/// layers carry facts and never the command line's words, and the executable asks the composition root
/// for what it needs instead of building repositories, gateways or stores itself.
@Suite struct LayeringTests {
    /// The targets that make up the app core and the store: what a backend embeds.
    static let innerTargets = [
        "Modules/Domain", "Modules/Data", "Modules/StoreCore", "Modules/SQLiteStore", "Modules/PostgreSQLStore",
        "Modules/MemoryStore", "Modules/Composition", "Modules/Gateway",
    ]

    /// A command (`hardtack signin`, `hardtack keychain salvage`), a long option (`--flow`), one of the
    /// keychain verbs' short options (`-U`, `-w`), or the product's bare name as advice (`upgrade
    /// hardtack`, "Hardtack creates it"): the command line's words, which the inner layers never show. The
    /// name as a fact ("not a Hardtack store", "this version of Hardtack") or in an identifier
    /// (`hardtack.session`, `hardtack-cli`) is no advice.
    static var commandLineWords: Regex<AnyRegexOutput> { try! Regex(commandLineWordsPattern) }
    /// The pattern of ``commandLineWords`` (a `Regex` is not `Sendable`, so the static holds its text).
    static let commandLineWordsPattern =
        #"hardtack (signin|signout|keychain|status|accounts|me|refresh|serve|demo|gateway)\b|(^|[\s(`'])--[a-z]|(^|[\s(`'])-[UwA-Za-z]\b(?!-)"#
        + #"|(?i:\b(upgrade|update|install|reinstall|run|newer|latest|restart|use) hardtack\b(?![.\-/_]\w)|\bhardtack (creates|makes|will)\b)"#

    /// Literals in the inner layers that hold the product's name as a label, never shown as advice: the
    /// gateway's domain-separation strings for its keys and seals, and the label of a session's items.
    static let labels = [
        #"^hardtack gateway (login state|session|session tokens|refresher|nonce|logout token id)\b"#,
        #"^Hardtack session$"#,
    ]

    /// Whether `literal` holds the command line's words (and is not one of the known labels).
    static func holdsCommandLineWords(_ literal: String) -> Bool {
        literal.contains(commandLineWords) && !labels.contains { literal.contains(try! Regex($0)) }
    }

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
        var found: [String] = []
        for target in Self.innerTargets {
            let files = SourceTree.swiftFiles(in: target)
            #expect(!files.isEmpty, "no sources in \(target)")
            for file in files {
                for (number, line) in file.lines.enumerated() {
                    for literal in SourceTree.stringLiterals(in: line) where Self.holdsCommandLineWords(literal) {
                        found.append("\(file.path):\(number + 1): \"\(literal)\"")
                    }
                }
            }
        }
        #expect(found.isEmpty, "command-line words in the inner layers: \(found)")
    }

    @Test func theWordCheckFindsTheWordsItLooksFor() {
        // The scan above would pass vacuously if it could not see a literal or its pattern matched nothing:
        // it sees the executable's advice, and finds the words in it.
        let advice = SourceTree.swiftFiles(in: "Modules/hardtack/Support").first { $0.path.hasSuffix("Advice.swift") }
        let literals = advice?.lines.flatMap { SourceTree.stringLiterals(in: $0) } ?? []
        let salvage = literals.first { $0.contains("hardtack keychain salvage --to NEW") }
        #expect(salvage != nil)
        #expect(salvage.map(Self.holdsCommandLineWords) == true)
        #expect(SourceTree.stringLiterals(in: #"let a = "x -U y" // "--not-this""#) == ["x -U y"])
        for words in [
            "x -U y", "try --flow code", "run `hardtack signin` first", "upgrade hardtack", "Use a newer hardtack.",
            "Hardtack creates it with mode 700", "(-w SECRET)",
        ] {
            #expect(Self.holdsCommandLineWords(words), "\(words)")
        }
        for clean in [
            "the stored session record has version 2", "a store of a newer format (version 3)", "hardtack.session",
            "the file is not a Hardtack export", "this version of Hardtack reads versions 1 to 3", "hardtack",
            "use hardtack.session/NAME", "changed outside Hardtack",
            "hardtack.gateway.logout-token", "hardtack-cli", "hardtack_gateway_refreshes_total 3", "x-forwarded-for",
            "a well-formed token", "hardtack gateway session tokens ", "Hardtack session", "/tmp/hardtack-1000/keychain.db",
        ] {
            #expect(!Self.holdsCommandLineWords(clean), "\(clean)")
        }
    }

    @Test func theExecutableBuildsNoRepositoryGatewayOrStore() {
        let built = [
            // Building a repository; its static facts (which services hold sessions) may be asked.
            "SecureStoreSessionRepository(", "SecureStoreSessionRepository.init", "AuthenticationGateway(", "ProfileAPI(", "SQLiteSecureItemStore",
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
