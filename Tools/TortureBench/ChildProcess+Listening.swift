extension ChildProcess {
    /// The port a server child says it listens on: its first line on standard output (a pipe),
    /// `listening on http://HOST:PORT`, within `timeout` seconds; `nil` when it says anything else.
    func listeningPort(timeout: Double) -> (port: UInt16, line: String)? {
        guard let pipe = stdoutPipe, case .line(let line) = LineReader(pipe).next(timeout: timeout),
            line.hasPrefix("listening on "), let colon = line.lastIndex(of: ":"),
            let port = UInt16(line[line.index(after: colon)...])
        else { return nil }
        return (port, line)
    }
}
