import Domain

extension MeResponseDTO {
    /// The user, or an error when `sub` is missing or empty.
    func user() throws(AuthenticationError) -> User {
        guard let sub, !sub.isEmpty else { throw .invalidResponse("/api/me returned no `sub`") }
        return User(id: sub, name: name ?? "")
    }
}
