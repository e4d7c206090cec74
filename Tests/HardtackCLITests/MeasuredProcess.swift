#if canImport(Glibc)
    import Glibc
#endif
import Foundation

/// A child process started with `posix_spawn` and reaped with `wait4`, so the test reads the CPU time
/// it used (`struct rusage`), which Foundation's `Process` does not give.
struct MeasuredProcess {
    /// The child's process id.
    let pid: pid_t

    /// Starts `executable` with `arguments` and `environment`, standard input from `input` (a file) and
    /// standard error into `errorPath`.
    init(_ executable: String, _ arguments: [String], environment: [String: String], input: String, errorPath: String)
        throws
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, nil, argv, envp)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
        pid = child
    }

    /// The CPU time the running child has used so far, user plus system, in seconds (from `/proc`, in the
    /// kernel's ticks), or `nil` when it cannot be read.
    func cpuSecondsSoFar() -> Double? {
        let stat = String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/stat"))) ?? Data(), as: UTF8.self)
        // The fields after the command's name, which is in parentheses and may hold spaces: utime and stime are
        // the 12th and 13th of them.
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Stops the child with SIGKILL and returns the CPU time it used in all, user plus system, in seconds.
    func killAndMeasure() -> Double {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
