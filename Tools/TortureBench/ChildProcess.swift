import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process started with `posix_spawn`: raw-byte arguments (so a fuzzer can pass invalid
/// UTF-8), standard streams to files, pipes or `/dev/null`, and a wait with a deadline. The bench
/// only ever signals the processes it started, by their own pid or process group.
final class ChildProcess {
    /// Where a standard stream of the child goes or comes from.
    enum Stream {
        /// `/dev/null`.
        case null
        /// A file: read from for standard input, created (0600) and truncated for output.
        case file(String)
        /// A pipe whose other end the parent keeps (``stdinPipe``, ``stdoutPipe``).
        case pipe
        /// The bench's own descriptor (inherits it).
        case inherit
    }

    /// How a child ended.
    enum Termination: Equatable, CustomStringConvertible {
        /// It exited with this status.
        case exited(Int32)
        /// A signal killed it.
        case signaled(Int32)

        var description: String {
            switch self {
            case .exited(let code): "exit \(code)"
            case .signaled(let signal): "killed by signal \(signal)"
            }
        }
    }

    /// A spawn that failed before the child ran.
    struct SpawnError: Error, CustomStringConvertible {
        let description: String
    }

    /// The child's process id.
    let pid: pid_t
    /// The parent's end of the child's standard input, when it is a pipe.
    private(set) var stdinPipe: Int32?
    /// The parent's end of the child's standard output, when it is a pipe.
    private(set) var stdoutPipe: Int32?
    /// How it ended, once it has been reaped.
    private(set) var termination: Termination?

    private init(pid: pid_t, stdinPipe: Int32?, stdoutPipe: Int32?) {
        self.pid = pid
        self.stdinPipe = stdinPipe
        self.stdoutPipe = stdoutPipe
    }

    deinit {
        if let stdinPipe { close(stdinPipe) }
        if let stdoutPipe { close(stdoutPipe) }
    }

    /// Starts `executable` with `arguments` (without the program name) and exactly `environment`.
    /// - Parameter newProcessGroup: put the child in a process group of its own, so that
    ///   ``killGroup(_:)`` reaches everything it starts.
    static func spawn(
        _ executable: String, _ arguments: [[UInt8]], environment: [String: String], stdin: Stream = .null,
        stdout: Stream = .null, stderr: Stream = .null, newProcessGroup: Bool = false
    ) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        if newProcessGroup {
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)

        var parentEnds: [Int32] = []
        var childEnds: [Int32] = []
        var stdinPipe: Int32?
        var stdoutPipe: Int32?
        func plan(_ stream: Stream, _ target: Int32, input: Bool) throws {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", input ? O_RDONLY : O_WRONLY, 0)
            case .file(let path):
                let flags = input ? O_RDONLY : (O_WRONLY | O_CREAT | O_TRUNC)
                posix_spawn_file_actions_addopen(&actions, target, path, flags, 0o600)
            case .inherit:
                break
            case .pipe:
                var ends: [Int32] = [0, 0]
                guard pipe(&ends) == 0 else { throw SpawnError(description: "pipe: \(errnoText())") }
                let (parentEnd, childEnd) = input ? (ends[1], ends[0]) : (ends[0], ends[1])
                _ = fcntl(parentEnd, F_SETFD, FD_CLOEXEC)
                parentEnds.append(parentEnd)
                childEnds.append(childEnd)
                posix_spawn_file_actions_adddup2(&actions, childEnd, target)
                posix_spawn_file_actions_addclose(&actions, childEnd)
                if input { stdinPipe = parentEnd } else { stdoutPipe = parentEnd }
            }
        }
        try plan(stdin, 0, input: true)
        try plan(stdout, 1, input: false)
        try plan(stderr, 2, input: false)

        var argv: [UnsafeMutablePointer<CChar>?] = [strdup(executable)]
        for argument in arguments {
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: argument.count + 1)
            for (index, byte) in argument.enumerated() { copy[index] = CChar(bitPattern: byte) }
            copy[argument.count] = 0
            argv.append(copy)
        }
        argv.append(nil)
        var envp: [UnsafeMutablePointer<CChar>?] = environment.sorted { $0.key < $1.key }.map {
            strdup("\($0.key)=\($0.value)")
        }
        envp.append(nil)
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        for end in childEnds { close(end) }
        guard code == 0 else {
            for end in parentEnds { close(end) }
            throw SpawnError(description: "cannot start \(executable): \(String(cString: strerror(code)))")
        }
        return ChildProcess(pid: pid, stdinPipe: stdinPipe, stdoutPipe: stdoutPipe)
    }

    /// ``spawn(_:_:environment:stdin:stdout:stderr:newProcessGroup:)`` with string arguments.
    static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String], stdin: Stream = .null,
        stdout: Stream = .null, stderr: Stream = .null, newProcessGroup: Bool = false
    ) throws -> ChildProcess {
        try spawn(
            executable, arguments.map { Array($0.utf8) }, environment: environment, stdin: stdin, stdout: stdout,
            stderr: stderr, newProcessGroup: newProcessGroup)
    }

    /// Closes the parent's end of the standard-input pipe (the child then reads end of file).
    func closeStdin() {
        if let stdinPipe { close(stdinPipe) }
        stdinPipe = nil
    }

    /// Sends `signal` to the child (if it has not been reaped yet).
    func kill(_ signal: Int32) {
        guard termination == nil else { return }
        _ = sendSignal(pid, signal)
    }

    /// Sends `signal` to the child's process group (only for children started in their own group).
    func killGroup(_ signal: Int32) {
        guard termination == nil else { return }
        _ = sendSignal(-pid, signal)
    }

    /// Waits for the child to end; with a `timeout`, gives up after it and returns `nil`.
    @discardableResult
    func wait(timeout: Double? = nil) -> Termination? {
        if let termination { return termination }
        let deadline = timeout.map { Date().addingTimeInterval($0) }
        var pause: useconds_t = 200
        while true {
            var status: Int32 = 0
            let result = waitpid(pid, &status, deadline == nil ? 0 : WNOHANG)
            if result == pid {
                termination = Self.decode(status)
                return termination
            }
            if result < 0 && errno != EINTR {
                termination = .exited(-1)
                return termination
            }
            if let deadline {
                if Date() >= deadline { return nil }
                usleep(pause)
                pause = min(pause * 2, 5_000)
            }
        }
    }

    /// Kills the child with SIGKILL and reaps it.
    @discardableResult
    func killAndReap() -> Termination? {
        kill(SIGKILL)
        return wait()
    }

    private static func decode(_ status: Int32) -> Termination {
        let signal = status & 0x7F
        if signal == 0 { return .exited((status >> 8) & 0xFF) }
        return .signaled(signal)
    }
}

/// `kill(2)`, out of ``ChildProcess``, whose own `kill` would shadow it.
private func sendSignal(_ pid: pid_t, _ signal: Int32) -> Int32 { kill(pid, signal) }

/// `strerror(errno)` as text.
func errnoText() -> String { String(cString: strerror(errno)) }
