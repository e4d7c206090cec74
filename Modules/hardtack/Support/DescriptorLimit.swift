#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's limit on open files (`RLIMIT_NOFILE`), which every socket counts against: a server raises
/// its soft limit, often 1,024, toward the hard limit the administrator set (as Go's runtime does at start,
/// and nginx's `worker_rlimit_nofile` lets one set), so that its connection limit, not the descriptor
/// limit, is what bounds it.
enum DescriptorLimit {
    /// The soft and hard limits after ``raise(toFit:)``.
    struct Limits {
        /// The limit in force: opening a descriptor past it fails (`EMFILE`).
        let soft: Int
        /// The most the soft limit may be raised to without privilege.
        let hard: Int
    }

    /// Raises the soft limit to `wanted` descriptors, or as near as the hard limit lets, never lowering it.
    /// Returns the limits after (`nil` when they cannot be read). A system that refuses the hard limit itself
    /// (macOS caps the soft limit below an unlimited hard one) is asked for its own cap, `OPEN_MAX`, there.
    static func raise(toFit wanted: Int) -> Limits? {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return nil }
        let goal = min(rlim_t(max(wanted, 0)), limit.rlim_max)
        if limit.rlim_cur < goal {
            var raised = limit
            raised.rlim_cur = goal
            if setrlimit(resource, &raised) == 0 {
                limit = raised
            } else {
                #if canImport(Darwin)
                    raised.rlim_cur = min(goal, rlim_t(OPEN_MAX))
                    if limit.rlim_cur < raised.rlim_cur, setrlimit(resource, &raised) == 0 { limit = raised }
                #endif
            }
        }
        return Limits(soft: count(limit.rlim_cur), hard: count(limit.rlim_max))
    }

    /// A limit as a count (`RLIM_INFINITY` as `Int.max`).
    private static func count(_ value: rlim_t) -> Int { value >= rlim_t(Int.max) ? Int.max : Int(value) }

    /// `RLIMIT_NOFILE`, typed as each C library takes it.
    #if canImport(Glibc)
        private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        private static let resource = RLIMIT_NOFILE
    #endif
}
