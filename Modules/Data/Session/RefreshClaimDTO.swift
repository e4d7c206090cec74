/// A process's claim on the current refresh, stored as its own item so that every process sharing
/// the store sees it.
struct RefreshClaimDTO: Codable, Equatable {
    /// The claiming process.
    var owner: String
    /// Until when the claim holds, in milliseconds since 1970.
    var until: Int64
}
