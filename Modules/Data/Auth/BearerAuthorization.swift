import Foundation
package import Domain

/// Builds and reads `Authorization` header values.
package enum BearerAuthorization {
    /// `Bearer <token>`. The token type guarantees a non-empty, header-safe value, so this can never
    /// produce `Bearer ` or `Bearer Optional(…)`.
    package static func headerValue(_ token: AccessToken) -> String {
        "Bearer " + (token.value.revealedString() ?? "")
    }

    /// The token in an `Authorization` response header, `Bearer <token>` or bare `<token>`.
    static func token(fromHeader value: String?) -> String? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        if parts.count == 2, parts[0].lowercased() == "bearer" {
            let token = parts[1].trimmingCharacters(in: .whitespaces)
            return token.isEmpty ? nil : token
        }
        // A lone scheme name ("Bearer") is an empty token, not a token called "Bearer".
        return parts.count == 1 && value.lowercased() != "bearer" ? value : nil
    }
}
