/// The tunable rules of the authentication use cases.
public struct AuthenticationPolicy: Sendable {
    /// Seconds kept in hand before an access token's expiry (clock skew, time in flight); capped at
    /// half a token's lifetime so short-lived tokens are still used.
    public var clockSkew: Double
    /// How long a claim on a refresh holds other processes back, in seconds. It must outlast the
    /// slowest refresh (request timeout plus the store's lock wait), or another process could present
    /// the same refresh token. A process that dies mid-refresh blocks others at most this long, and not
    /// at all where the repository can tell that it died (processes of one machine; instances on any
    /// machine sharing a PostgreSQL store).
    public var refreshLease: Double
    /// At most this many refreshes of one account within ``refreshWindow`` seconds; one more is a
    /// refresh storm.
    public var maxRefreshesPerWindow: Int
    /// At most this many refreshes of all accounts together within ``refreshWindow`` seconds, counted
    /// by the ``RefreshStormGuard`` the refreshers share (one per process); one more is a refresh storm.
    /// The default, 6,000 a minute, is 100 a second: raise it for a backend whose users' tokens expire
    /// faster than that on average.
    public var maxRefreshesPerWindowAllAccounts: Int
    /// The refresh-storm window, in seconds.
    public var refreshWindow: Double
    /// After a refresh the server did not answer (unreachable, a timeout, 5xx, 408, 429), how long the next
    /// refresh of that account (of that session, in a gateway) waits, in seconds, doubled after each further
    /// one up to ``unansweredRefreshPauseLimit``; calls meanwhile fail at once with the same error case
    /// (the session is kept). 0: no pause.
    public var unansweredRefreshPause: Double
    /// The longest ``unansweredRefreshPause``, in seconds: how long after an outage ends a session may
    /// still wait.
    public var unansweredRefreshPauseLimit: Double
    /// How often a process waiting on another's refresh looks for its result, in milliseconds.
    public var refreshPollMilliseconds: Int
    /// How long, in seconds, a process that holds newly rotated tokens keeps trying to store them while
    /// the store cannot be reached (a database restarting): the server has already spent the old
    /// refresh token, so giving up loses the session. It stops 5 s before the claim's ``refreshLease``
    /// ends, whatever its value (past that, a waiting process may present the spent token).
    public var completionRetrySeconds: Double

    /// Creates a policy; the defaults suit interactive apps.
    public init(
        clockSkew: Double = 30, refreshLease: Double = 45, maxRefreshesPerWindow: Int = 10,
        refreshWindow: Double = 60, refreshPollMilliseconds: Int = 20, completionRetrySeconds: Double = 30,
        maxRefreshesPerWindowAllAccounts: Int = 6_000, unansweredRefreshPause: Double = 0.5,
        unansweredRefreshPauseLimit: Double = 2
    ) {
        self.unansweredRefreshPause = unansweredRefreshPause
        self.unansweredRefreshPauseLimit = unansweredRefreshPauseLimit
        self.maxRefreshesPerWindowAllAccounts = maxRefreshesPerWindowAllAccounts
        self.clockSkew = clockSkew
        self.refreshLease = refreshLease
        self.maxRefreshesPerWindow = maxRefreshesPerWindow
        self.refreshWindow = refreshWindow
        self.refreshPollMilliseconds = refreshPollMilliseconds
        self.completionRetrySeconds = completionRetrySeconds
    }
}
