import Foundation

/// What each thread of a process that stopped answering is doing, so that a rare stall seen once (on CI,
/// say) leaves more than its symptom: each thread's name, state, kernel wait channel and CPU time from
/// `/proc`, and, when `gdb` is installed, every thread's stack (written to a file in the scratch directory,
/// which a failed run keeps).
enum ThreadReport {
    /// Writes the report of `pid`, which listens on `port`, to `path` and returns one line per thread (name,
    /// state, wait channel, CPU seconds), one for its TCP sockets on `port` by state (a listening socket's
    /// queue of connections not accepted yet is its `Recv-Q`: a loop that stopped accepting has a full one),
    /// and where the stacks are or why there are none.
    static func write(pid: pid_t, port: UInt16, to path: String, runner: CommandRunner) -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var lines: [String] = []
        for tid in tasks.sorted(by: { (Int($0) ?? 0) < (Int($1) ?? 0) }) {
            let base = "/proc/\(pid)/task/\(tid)"
            let name = text(base + "/comm")
            let wchan = text(base + "/wchan")
            // The fields after the name in parentheses (which may hold spaces): state is the first, utime and
            // stime the 12th and 13th.
            let stat = text(base + "/stat")
            let fields = stat.split(separator: ")").last.map { $0.split(separator: " ") } ?? []
            let state = fields.first.map(String.init) ?? "?"
            let cpu = fields.count > 12 ? ((Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)) / ticks : 0
            lines.append("thread \(tid) \(name): state \(state), waiting in \(wchan.isEmpty ? "-" : wchan), "
                + String(format: "CPU %.2f s", cpu))
        }
        var report = lines.joined(separator: "\n") + "\n"
        let ss = "/usr/bin/ss"
        if FileManager.default.isExecutableFile(atPath: ss) {
            let sockets = runner.run(ss, ["-tanp", "sport = :\(port)"], timeout: 30).out
            let rows = sockets.split(separator: "\n").dropFirst()
            var states: [String: Int] = [:]
            for row in rows { states[String(row.split(separator: " ").first ?? "?"), default: 0] += 1 }
            let listening = rows.filter { $0.hasPrefix("LISTEN") }.map { row in
                row.split(separator: " ").dropFirst().first.map { "Recv-Q \($0)" } ?? "?"
            }
            lines.append(
                "sockets on port \(port): "
                    + states.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                    + "; listening: " + listening.joined(separator: ", "))
            report += "\n" + sockets
        }
        let gdb = "/usr/bin/gdb"
        if FileManager.default.isExecutableFile(atPath: gdb) {
            let stacks = runner.run(
                gdb, ["-batch", "-nx", "-p", "\(pid)", "-ex", "thread apply all bt"], timeout: 120)
            report += "\n" + stacks.out + stacks.err
            lines.append("each thread's stack (gdb): \(path)")
        } else {
            lines.append("no stacks: gdb is not installed (apt-get install gdb), the threads' states are in \(path)")
        }
        _ = writeFile(path, Array(report.utf8))
        return lines
    }

    /// A `/proc` file's text without its trailing newline, or empty.
    private static func text(_ path: String) -> String {
        String(decoding: readFile(path), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
