#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's limit on open files (`RLIMIT_NOFILE`), which every socket counts against: a server raises
/// its soft limit, often 1,024, toward the hard limit the administrator set, as nginx's
/// `worker_rlimit_nofile` and Go's runtime do, so that its connection limit, not the descriptor limit, is
/// what bounds it.
enum DescriptorLimit {
    /// Raises the soft limit to `wanted` descriptors, or as near as the hard limit lets, never lowering it.
    /// Returns the soft limit after (`nil` when it cannot be read).
    static func raise(toFit wanted: Int) -> Int? {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return nil }
        let goal = min(rlim_t(max(wanted, 0)), limit.rlim_max)
        if limit.rlim_cur < goal {
            var raised = limit
            raised.rlim_cur = goal
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur >= rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
    }

    /// `RLIMIT_NOFILE`, typed as each C library takes it.
    #if canImport(Glibc)
        private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        private static let resource = RLIMIT_NOFILE
    #endif
}
