public import Domain

extension OpenIDAuthenticationGateway {
    /// One poll of the token endpoint with `deviceCode` (RFC 8628 §3.4, §3.5).
    /// - Throws: ``AuthenticationError/invalidCredentials(_:)`` on `access_denied`,
    ///   ``AuthenticationError/rejected(status:reason:)`` on `expired_token`, and what a sign-in may throw.
    public func poll(deviceCode: SecretBytes) async throws(AuthenticationError) -> DevicePollOutcome {
        let response = try await token.postForm(
            metadata.tokenEndpoint.path,
            [
                ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                ("device_code", deviceCode.revealedString() ?? ""),
            ] + client.fields, headers: client.headers)
        if response.status == 200 { return .session(try await session(from: response, nonce: nil, method: .deviceCode)) }
        switch ResponseBody.oauthError(in: response)?.code {
        case "authorization_pending": return .pending
        case "slow_down": return .slowDown
        case "access_denied": throw .invalidCredentials("the sign-in was refused on the other device")
        case "expired_token": throw .rejected(status: response.status, reason: "expired_token: the device code expired")
        default: throw token.signInFailure(response)
        }
    }
}
