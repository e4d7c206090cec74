import Domain

extension MeResponseDTO {
    /// The user, or an error when no identifier is given or it is empty. `sub` wins over `id`, which
    /// wins over `userId`.
    func user() throws(AuthenticationError) -> User {
        guard let identifier = (sub ?? id ?? userId)?.text, !identifier.isEmpty else {
            throw .invalidResponse("/api/me returned no `sub`, `id` or `userId`")
        }
        return User(id: identifier, name: name ?? nickname ?? "")
    }
}
