/// The JSON body of `GET /api/me`.
struct MeResponseDTO: Decodable {
    let sub: String?
    let name: String?
}
