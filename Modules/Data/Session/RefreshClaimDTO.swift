/// A process's claim on the current refresh, stored as its own item so that every process sharing
/// the store sees it.
struct RefreshClaimDTO: Codable, Equatable {
    /// The claiming process.
    var owner: String
    /// Until when the claim holds, in milliseconds since 1970, by the clock that judges leases (the
    /// store's shared clock when it has one).
    var until: Int64
    /// Whether the claimant marked that it is presenting the refresh token (absent in claims written
    /// before the mark existed, which count as sent: the token may have been spent).
    var sent: Bool?

    /// Whether the refresh token may have been presented under this claim.
    var maySpendToken: Bool { sent ?? true }
}
