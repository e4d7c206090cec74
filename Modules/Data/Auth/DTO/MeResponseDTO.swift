/// The JSON body of `GET /api/me`. OAuth servers name the user `sub` (and `name`); the seeds'
/// header-style backends answer with `id` or `userId` (and `nickname`). Each identifier may be a JSON
/// string or integer.
struct MeResponseDTO: Decodable {
    let sub: IdentifierDTO?
    let id: IdentifierDTO?
    let userId: IdentifierDTO?
    let name: String?
    let nickname: String?
}
