public import Foundation

/// Opens a URL in the user's browser the way `xdg-open` and Python's `webbrowser` do: the program named
/// by `BROWSER` with the URL as its one argument, else `xdg-open` when there is one. The program is
/// not waited on (a browser may run for hours); whether it opened anything is not known, which is why
/// the caller also prints the URL.
public struct BrowserOpener: Sendable {
    private let environment: [String: String]

    /// Creates an opener reading `BROWSER` and `PATH` from `environment`.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// Starts the browser on `url`; returns the program started, or `nil` when there was none to start.
    public func open(_ url: URL) -> String? {
        let candidates = [environment["BROWSER"], "xdg-open"].compactMap { $0 }.filter { !$0.isEmpty }
        for name in candidates {
            guard let program = resolve(name) else { continue }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = [url.absoluteString]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            do {
                try process.run()
                return (program as NSString).lastPathComponent
            } catch {
                continue
            }
        }
        return nil
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
