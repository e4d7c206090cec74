public import Domain
public import Foundation

/// Reads the tokens out of a legacy preferences file's bytes.
public enum LegacyPreferences {
    /// The keys older versions stored the access token under.
    static let accessKeys = ["Authorization", "access", "accessToken", "access_token"]
    /// The keys older versions stored the refresh token under.
    static let refreshKeys = ["refresh", "Authorization-refresh", "refreshToken", "refresh_token"]

    /// The tokens in `contents`, or `.wiped` when it is empty or starts with a zero byte: an earlier
    /// run overwrote it from the start and was stopped before deleting it (JSON never starts with 0).
    /// - Throws: ``AuthenticationError/invalidLegacyFile(_:)`` when it is not such a JSON object or
    ///   lacks a token; the message never quotes the file.
    public static func parse(_ contents: Data) throws(AuthenticationError) -> LegacyTokens {
        if contents.first ?? 0 == 0 { return .wiped }
        let dto: LegacyPreferencesDTO
        do {
            dto = try JSONDecoder().decode(LegacyPreferencesDTO.self, from: contents)
        } catch {
            throw .invalidLegacyFile("the legacy file is not a JSON object of tokens")
        }
        guard let access = first(of: accessKeys, in: dto.values).flatMap(BearerAuthorization.token(fromHeader:))
        else { throw .invalidLegacyFile("the legacy file holds no access token") }
        guard let refresh = first(of: refreshKeys, in: dto.values).flatMap(BearerAuthorization.token(fromHeader:))
        else { throw .invalidLegacyFile("the legacy file holds no refresh token") }
        return .tokens(access: SecretBytes(utf8: access), refresh: SecretBytes(utf8: refresh))
    }

    private static func first(of keys: [String], in values: [String: String]) -> String? {
        keys.lazy.compactMap { values[$0] }.first { !$0.isEmpty }
    }
}
