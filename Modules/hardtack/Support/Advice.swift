import Data
import StoreCore
import Domain

/// The command line's words for what the inner layers report as facts: which command or option to use
/// next. The store, the repositories and the use cases say what happened; only here does that become
/// advice about `hardtack` itself, so a backend that embeds them never shows its users a command line
/// they do not have.
enum Advice {
    /// The message for a store failure, with the commands and options that help.
    static func message(_ error: SecureStoreError) -> String {
        switch error {
        case .duplicateItem:
            "The specified item already exists in the keychain. Update it instead (hardtack keychain: -U)."
        case .missingEntitlement(let group):
            "This client does not belong to access group '\(group)'. Open the store with that group "
                + "(--access-group) or leave the group out."
        case .keySourceMismatch(let expected):
            "This store is protected by \(phrase(expected)); give that instead."
        case .integrityFailure(let what) where what.hasSuffix(RollbackAnchorFile.missing):
            "Integrity check failed: \(what). If it never had one there, `hardtack keychain verify --rollback-anchor "
                + "FILE --new-rollback-anchor` makes it, anchoring the store as it is now; if it had, find the anchor, or restore the store "
                + "and its anchor from a backup you trust."
        case .integrityFailure(let what) where what.hasSuffix(RollbackAnchorFile.olderCopy + ")"):
            "Integrity check failed: \(what). Put the newest copy of the store back. To go back to this copy on "
                + "purpose (a restore from a backup), move the anchor aside and run `hardtack keychain verify "
                + "--rollback-anchor FILE --new-rollback-anchor`, which anchors the store as it is now."
        case .integrityFailure(let what):
            "Integrity check failed: \(what). The store is damaged or was tampered with; restore it from a "
                + "backup (hardtack keychain verify tells how many items are sound; hardtack keychain salvage --to NEW "
                + "copies every item that still authenticates into a new store)."
        case .storage(let failure) where failure.kind == .newerFormat:
            "\(failure.message). Use a newer hardtack."
        case .storage(let failure) where failure.kind == .serverNotVerified:
            "\(failure.message). Give the CA certificate that signed the server's certificate as sslrootcert=FILE in "
                + "the store's URI (or put it in ~/.postgresql/root.crt; for a server certified by a public CA, "
                + "sslrootcert=/etc/ssl/certs/ca-certificates.crt), and name the server as its certificate does. To "
                + "connect without the check, add sslmode=require (encrypted, the server unverified) or "
                + "sslmode=disable (plaintext) to the URI, or set PGSSLMODE."
        default:
            error.description
        }
    }

    /// The message for a failure of signing in, refreshing or an authorized call, with the commands and
    /// options that help.
    static func message(_ error: AuthenticationError) -> String {
        switch error {
        case .notSignedIn:
            "not signed in. Run `hardtack signin` first."
        case .storeDamaged(let reason):
            "the secure store is damaged: \(reason) The user is not signed out; `hardtack keychain salvage --to NEW` "
                + "copies every sound item into a new store."
        case .storeUnavailable(SecureStoreSessionRepository.recordOfNewerVersion):
            "\(error.description); upgrade hardtack."
        case .storageFailed(let reason) where reason.hasPrefix(RefreshSession.rotationLost):
            "the server issued a new refresh token, but the store could not keep it in time ("
                + reason.dropFirst(RefreshSession.rotationLost.count)
                + "), so the session is probably lost: if the next call says it has ended, run `hardtack signin`."
        case .unsupported(DeviceAuthorizationFlow.noDeviceEndpoint):
            DeviceAuthorizationFlow.noDeviceEndpoint + "; try --flow code"
        case .unsupported(AuthorizationRequest.noAuthorizationEndpoint):
            AuthorizationRequest.noAuthorizationEndpoint + "; try --flow device"
        case .unsupported(OAuthAuthenticationGateway.identityProviderNeedsHeaderContract):
            OAuthAuthenticationGateway.identityProviderNeedsHeaderContract + " (--style header)"
        default:
            error.description
        }
    }

    /// The message for a launch decision of "the store cannot be used", with the upgrade a session record
    /// of a newer version calls for.
    static func storeUnavailable(_ reason: String) -> String {
        "the store cannot be used: \(reason)"
            + (reason == SecureStoreSessionRepository.recordOfNewerVersion ? "; upgrade hardtack." : "")
    }

    /// A kind of key as the options that give it.
    private static func phrase(_ kind: ProtectionKind) -> String {
        switch kind {
        case .passphrase: "a passphrase (--passphrase-file or HARDTACK_PASSPHRASE)"
        case .key: "a key (--key-file, an environment variable or a credential)"
        case .exportPassphrase: "an export passphrase (--export-passphrase-file)"
        case .exportKeyFile: "an export key file (--export-key-file)"
        }
    }
}
