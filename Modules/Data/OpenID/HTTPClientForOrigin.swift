public import Foundation

/// Makes the ``HTTPClient`` for an origin (`scheme://host[:port]`): discovery names endpoints as
/// absolute URLs, possibly on other hosts than the issuer, while the port sends paths below one base.
public typealias HTTPClientForOrigin = @Sendable (URL) -> any HTTPClient
