import Foundation
import TestSupport
import Testing

/// The issuer `Tools/oauth-server run` names, if any.
let realProviderIssuer = ProcessInfo.processInfo.environment["HARDTACK_TEST_OIDC"].flatMap { $0.isEmpty ? nil : $0 }

/// The code flow against a real OpenID Connect provider from PyPI (oidc-provider-mock, built on Authlib),
/// which `Tools/oauth-server run` starts and names in `HARDTACK_TEST_OIDC` (Tools/test does). Without
/// it the tests fail and say so, as the PostgreSQL tests do, rather than skip.
struct RealProviderTests {
    static let issuer = realProviderIssuer
    let sandbox = CLISandbox()

    func signIn(mode: String, issuer: String? = nil) async throws -> (CLIResult, String) {
        _ = try #require(
            Self.issuer, "HARDTACK_TEST_OIDC is not set: run the tests with Tools/test (it starts a real OpenID Connect provider)")
        let browser = try ScriptedBrowser.install(in: sandbox.directory.path)
        let page = sandbox.directory.file("page.html")
        let result = try await sandbox.run(
            [
                "signin", "--flow", "code", "--issuer", issuer ?? Self.issuer ?? "", "--client-id", "hardtack-cli",
                "--client-secret-stdin", "--store", sandbox.store, "--timeout", "60",
            ],
            input: "any-secret\n",
            environment: ["BROWSER": browser, "SCRIPTED_BROWSER_MODE": mode, "SCRIPTED_BROWSER_PAGE": page])
        return (result, (try? String(contentsOfFile: page, encoding: .utf8)) ?? "")
    }

    @Test func theCodeFlowSignsInWithAVerifiedIDToken() async throws {
        let (result, page) = try await signIn(mode: "approve")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("signed in as Alice Liddell (alice)"))
        #expect(page.contains("Sign-in complete"))
        #expect(!result.stderr.contains("any-secret") && !result.stdout.contains("eyJ"))
        #expect(try await sandbox.run(["status", "--store", sandbox.store]).status == 0)
    }

    /// This provider demands a client secret even from a native client: the one given at sign-in is kept
    /// (encrypted, beside the tokens) and sent again, so a later refresh, `me` and sign-out work without it.
    @Test func theClientSecretGivenAtSignInServesLaterRefreshes() async throws {
        let (result, _) = try await signIn(mode: "approve")
        #expect(result.status == 0, "\(result.stderr)")
        let refresh = try await sandbox.run(["refresh", "--store", sandbox.store])
        #expect(refresh.status == 0, "\(refresh.stderr)")
        #expect(!refresh.stderr.contains("any-secret") && !refresh.stdout.contains("any-secret"))
        let me = try await sandbox.run(["me", "--store", sandbox.store])
        #expect(me.status == 0 && me.stdout.contains("alice"), "\(me.stdout) \(me.stderr)")
        let dump = try await sandbox.run(["keychain", "dump", "--store", sandbox.store, "--json"])
        #expect(!dump.stdout.contains("any-secret"))
        #expect(try await sandbox.run(["signout", "--store", sandbox.store]).status == 0)
    }

    /// This provider's denial redirect drops `state` (RFC 6749 §4.1.2.1 requires it back), so the
    /// client cannot tie it to its request and refuses it as it would a forged one: never exit 0, nothing
    /// stored.
    @Test func aDenialWithoutStateIsRefusedAndStoresNothing() async throws {
        let (result, _) = try await signIn(mode: "deny")
        #expect(result.status == 76, "\(result.stderr)")
        #expect(result.stderr.contains("`state`"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.store))
    }

    @Test func anIssuerSpelledDifferentlyIsRefused() async throws {
        let (result, _) = try await signIn(mode: "approve", issuer: (Self.issuer ?? "") + "/")
        #expect(result.status != 0)
        #expect(result.stderr.contains("another issuer") || result.stderr.contains("discovery"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.store))
    }
}

/// The advice the executable adds to the inner layers' facts: which flag to use instead.
struct FlowAdviceTests {
    let sandbox = CLISandbox()

    /// This provider has no device endpoint: Data says so, and only the command line names `--flow code`.
    @Test func anIssuerWithoutADeviceEndpointPointsAtTheCodeFlow() async throws {
        let issuer = try #require(realProviderIssuer, "HARDTACK_TEST_OIDC is not set: run the tests with Tools/test")
        let result = try await sandbox.run(
            ["signin", "--flow", "device", "--issuer", issuer, "--client-id", "hardtack-cli", "--store", sandbox.store])
        #expect(result.status != 0)
        #expect(result.stderr.contains("the issuer has no device authorization endpoint; try --flow code"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.store))
    }

    /// The OAuth contract has no identity-provider sign-in: Data says so; the command line names `--style header`.
    @Test func anIdentityTokenUnderTheOAuthContractPointsAtTheHeaderStyle() async throws {
        let result = try await sandbox.run(
            [
                "signin", "--provider", "apple", "--identity-token-stdin", "--server", "http://127.0.0.1:9",
                "--store", sandbox.store,
            ], input: "token\n")
        #expect(result.status != 0)
        #expect(result.stderr.contains("needs the header contract (--style header)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.store))
    }
}
