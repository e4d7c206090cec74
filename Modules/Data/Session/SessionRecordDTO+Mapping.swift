import Domain
import Foundation

extension SessionRecordDTO {
    /// The record of `session`.
    init(_ session: Session) {
        let (method, provider): (String, String?) =
            switch session.method {
            case .password: ("password", nil)
            case .identityProvider(let name): ("identityProvider", name)
            case .legacyImport: ("legacyImport", nil)
            case .authorizationCode: ("authorizationCode", nil)
            case .deviceCode: ("deviceCode", nil)
            }
        self.init(
            version: 1, userID: session.user?.id, userName: session.user?.name, method: method, provider: provider,
            accessIssuedAt: session.accessToken.issuedAt.millisecondsSince1970,
            accessExpiresAt: session.accessToken.expiresAt?.millisecondsSince1970,
            refreshExpiresAt: session.refreshToken.expiresAt?.millisecondsSince1970, server: session.origin?.server,
            contract: session.origin?.contract, clientID: session.origin?.clientID)
        if let remembered = session.issuer {
            issuer = remembered.issuer
            issuerClientID = remembered.clientID
            tokenEndpoint = remembered.tokenEndpoint
            revocationEndpoint = remembered.revocationEndpoint
            userinfoEndpoint = remembered.userinfoEndpoint
            clientAuthMethod = remembered.clientAuthMethod
            clientSecretKept = remembered.clientSecret != nil ? true : nil
        }
        if let identity = session.identity {
            idTokenKept = true
            providerSessionID = identity.sessionID
        }
    }

    /// The session this record describes, with its two tokens and, for an issuer's session whose client
    /// has one, the client secret kept beside them, and the ID token when one is kept.
    /// - Throws: ``AuthenticationError/storeUnavailable(_:)`` when the record does not make sense
    ///   (the store decrypted it, so this means a bug or an incompatible version, not an attacker).
    func session(access: SecretBytes, refresh: SecretBytes, clientSecret: SecretBytes? = nil, idToken: SecretBytes? = nil)
        throws(AuthenticationError) -> Session
    {
        let signInMethod: SignInMethod
        switch (method, provider) {
        case ("password", _): signInMethod = .password
        case ("identityProvider", let provider?): signInMethod = .identityProvider(provider)
        case ("legacyImport", _): signInMethod = .legacyImport
        case ("authorizationCode", _): signInMethod = .authorizationCode
        case ("deviceCode", _): signInMethod = .deviceCode
        default: throw .storeUnavailable(SecureStoreSessionRepository.recordOfNewerVersion)
        }
        guard version == 1 else {
            throw .storeUnavailable(SecureStoreSessionRepository.recordOfNewerVersion)
        }
        let user = userID.map { User(id: $0, name: userName ?? "") }
        // All three or none: a record with only some of them is treated as an older one.
        let origin = server.flatMap { server in
            contract.flatMap { contract in
                clientID.map { SessionOrigin(server: server, contract: contract, clientID: $0) }
            }
        }
        // The issuer's endpoints, for a session signed in through discovery.
        var issuerRecord: SessionIssuer?
        if let issuer, let issuerClientID, let tokenEndpoint {
            issuerRecord = SessionIssuer(
                issuer: issuer, clientID: issuerClientID, tokenEndpoint: tokenEndpoint,
                revocationEndpoint: revocationEndpoint, userinfoEndpoint: userinfoEndpoint, clientSecret: clientSecret,
                clientAuthMethod: clientAuthMethod)
        }
        do {
            return Session(
                accessToken: try AccessToken(
                    value: access, issuedAt: Date(millisecondsSince1970: accessIssuedAt),
                    expiresAt: accessExpiresAt.map(Date.init(millisecondsSince1970:))),
                refreshToken: try RefreshToken(
                    value: refresh, expiresAt: refreshExpiresAt.map(Date.init(millisecondsSince1970:))),
                user: user, method: signInMethod, origin: origin, issuer: issuerRecord,
                identity: idToken.map { SignInIdentity(idToken: $0, sessionID: providerSessionID) })
        } catch {
            throw .storeUnavailable("a stored token is malformed")
        }
    }
}

extension Date {
    /// Whole milliseconds since 1970, as records store times.
    var millisecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    /// The date `milliseconds` after 1970.
    init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
