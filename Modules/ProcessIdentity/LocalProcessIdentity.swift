#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Names this process as the owner of a refresh claim, and tells whether the owner of a claim has
/// ended, so that a process killed in the middle of a refresh does not hold every other process back
/// until its lease runs out.
///
/// An owner is `pid<N>@<boot>/<pid namespace>/<random>`. It is known to be gone only when it ran on
/// this boot of this machine, in this pid namespace, and no process has its pid any more; otherwise
/// (another machine sharing the store, a container, a recycled pid) nothing is known and the lease
/// decides, as before.
public enum LocalProcessIdentity {
    /// A new owner id for this process.
    public static func ownerID() -> String {
        let random = (0..<8).map { _ in String(UInt8.random(in: 0...255), radix: 16) }.joined()
        return "pid\(getpid())@\(bootID)/\(pidNamespace)/\(random)"
    }

    /// Whether the process that made `owner` (with ``ownerID()``) has ended.
    public static func isGone(_ owner: String) -> Bool {
        guard let pid = localPID(owner) else { return false }
        return kill(pid, 0) != 0 && errno == ESRCH
    }

    /// Whether `owner` names a process of this boot of this machine, in this pid namespace: one whose
    /// end ``isGone(_:)`` can see.
    public static func isOfThisMachine(_ owner: String) -> Bool { localPID(owner) != nil }

    /// The pid in `owner`, when it names a process of this boot, machine and pid namespace.
    private static func localPID(_ owner: String) -> Int32? {
        guard owner.hasPrefix("pid"), let at = owner.firstIndex(of: "@"),
            let pid = Int32(owner[owner.index(owner.startIndex, offsetBy: 3)..<at]), pid > 0
        else { return nil }
        let place = owner[owner.index(after: at)...].split(separator: "/", omittingEmptySubsequences: false)
        guard place.count == 3, !bootID.isEmpty, !pidNamespace.isEmpty, place[0] == bootID, place[1] == pidNamespace
        else { return nil }
        return pid
    }

    /// This boot of this machine (empty when unknown, and then no owner is ever known to be gone).
    private static let bootID: String = {
        #if os(Linux)
            let text = readSmallFile("/proc/sys/kernel/random/boot_id")
        #else
            var boot = timeval()
            var size = MemoryLayout<timeval>.size
            let text = sysctlbyname("kern.boottime", &boot, &size, nil, 0) == 0 ? "\(boot.tv_sec).\(boot.tv_usec)" : ""
        #endif
        return String(text.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." })
    }()

    /// The pid namespace this process sees pids in (the same everywhere on systems without namespaces).
    private static let pidNamespace: String = {
        #if os(Linux)
            var buffer = [CChar](repeating: 0, count: 128)
            let count = readlink("/proc/self/ns/pid", &buffer, buffer.count - 1)
            guard count > 0 else { return "" }
            let name = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return String(name.filter { $0.isNumber })
        #else
            return "host"
        #endif
    }()

    #if os(Linux)
        private static func readSmallFile(_ path: String) -> String {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return "" }
            defer { close(descriptor) }
            var buffer = [UInt8](repeating: 0, count: 128)
            let count = read(descriptor, &buffer, buffer.count)
            return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
        }
    #endif
}
