#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Nanoseconds from the system's monotonic clock: what every operation is timed with.
enum MonotonicClock {
    /// The current reading, in nanoseconds.
    @inline(__always)
    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// How long `body` takes, in nanoseconds.
    @inline(__always)
    static func time(_ body: () throws -> Void) rethrows -> UInt64 {
        let start = now()
        try body()
        return now() - start
    }
}
