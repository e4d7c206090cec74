#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
public import Foundation

/// Opens a URL in the user's browser the way `xdg-open` and Python's `webbrowser` do: the program named
/// by `BROWSER` with the URL as its one argument, else `xdg-open` when there is one. The program is
/// not waited on (a browser may run for hours); whether it opened anything is not known, which is why
/// the caller also prints the URL. The browser gets `environment` less what holds Hardtack's secrets
/// (``childEnvironment``): a browser runs long and starts other programs, none of which needs the
/// store's passphrase or a database password.
public struct BrowserOpener: Sendable {
    private let environment: [String: String]

    /// Creates an opener reading `BROWSER` and `PATH` from `environment`, and handing the rest of it,
    /// less Hardtack's secrets, to the browser.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// Starts the browser on `url`; returns the program started, or `nil` when there was none to start.
    public func open(_ url: URL) -> String? {
        let candidates = [environment["BROWSER"], "xdg-open"].compactMap { $0 }.filter { !$0.isEmpty }
        for name in candidates {
            guard let program = resolve(name),
                Self.startDetached(program, url.absoluteString, environment: Self.childEnvironment(environment))
            else { continue }
            return (program as NSString).lastPathComponent
        }
        return nil
    }

    /// Starts `program` with `argument`, standard input and output on `/dev/null`, through `/bin/sh`, which
    /// puts it in the background and ends at once: the program is then no child of this process (no
    /// zombie when it ends first, nothing of this process kept for it, as Foundation's `Process` would
    /// keep while it runs), and the URL is passed as an argument, never as shell text.
    private static func startDetached(_ program: String, _ argument: String, environment: [String]) -> Bool {
        let script = #""$0" "$1" </dev/null >/dev/null &"#
        let arguments = ["/bin/sh", "-c", script, program, argument]
        var pid: pid_t = 0
        let spawned = withCStrings(arguments) { argv in
            withCStrings(environment) { envp in posix_spawn(&pid, "/bin/sh", nil, nil, argv, envp) }
        }
        guard spawned == 0 else { return false }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // The shell's own status: 0 once it has started the program in the background.
        return status == 0
    }

    /// `environment` as `NAME=value` entries, without the variables that may hold Hardtack's secrets or
    /// point at them: every `HARDTACK_*` (the passphrase, the key, the store's URI with its password)
    /// and libpq's `PGPASSWORD`.
    static func childEnvironment(_ environment: [String: String]) -> [String] {
        environment.filter { name, _ in !name.hasPrefix("HARDTACK_") && name != "PGPASSWORD" }
            .map { "\($0.key)=\($0.value)" }.sorted()
    }

    /// Runs `body` with `strings` as a NULL-terminated C array.
    private static func withCStrings<Result>(
        _ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result
    ) -> Result {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        return body(pointers)
    }

    /// The executable `name` names: a path as given, else the first match on `PATH`.
    private func resolve(_ name: String) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        for directory in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
