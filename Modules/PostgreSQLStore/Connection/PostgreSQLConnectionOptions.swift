/// Timeouts and TCP settings of a connection. The URI wins over the TCP settings it names itself
/// (`connect_timeout`, `keepalives*`, `tcp_user_timeout`).
@_spi(HardtackTools) public struct PostgreSQLConnectionOptions: Sendable, Equatable {
    /// How long connecting (resolve, TCP, TLS, authentication) may take in all.
    @_spi(HardtackTools) public var connectTimeout: Duration
    /// How long a call may wait for its answer when it names no timeout of its own.
    @_spi(HardtackTools) public var callTimeout: Duration
    /// After a call's deadline: how long the cancel request and the end of the cancelled query may take
    /// before the connection is closed instead. A call never takes longer than its timeout plus this.
    @_spi(HardtackTools) public var cancelGrace: Duration
    /// How long sent data may stay unacknowledged before the kernel drops the connection
    /// (`tcp_user_timeout`).
    @_spi(HardtackTools) public var tcpUserTimeout: Duration
    /// Idle time before the first TCP keepalive probe (`keepalives_idle`).
    @_spi(HardtackTools) public var keepaliveIdle: Duration
    /// Time between keepalive probes (`keepalives_interval`).
    @_spi(HardtackTools) public var keepaliveInterval: Duration
    /// Unanswered probes before the connection is dropped (`keepalives_count`).
    @_spi(HardtackTools) public var keepaliveCount: Int
    /// The `application_name` the server shows in `pg_stat_activity`, unless the URI sets one.
    @_spi(HardtackTools) public var applicationName: String

    /// Options with defaults suited to a token store: 5 s to connect, 10 s per call, 2 s of grace.
    @_spi(HardtackTools) public init(
        connectTimeout: Duration = .seconds(5), callTimeout: Duration = .seconds(10),
        cancelGrace: Duration = .seconds(2), tcpUserTimeout: Duration = .seconds(30),
        keepaliveIdle: Duration = .seconds(30), keepaliveInterval: Duration = .seconds(10), keepaliveCount: Int = 3,
        applicationName: String = "hardtack"
    ) {
        self.connectTimeout = connectTimeout
        self.callTimeout = callTimeout
        self.cancelGrace = cancelGrace
        self.tcpUserTimeout = tcpUserTimeout
        self.keepaliveIdle = keepaliveIdle
        self.keepaliveInterval = keepaliveInterval
        self.keepaliveCount = keepaliveCount
        self.applicationName = applicationName
    }
}
