import Foundation

/// One `hardtack me --account A` process of a multi-instance refresh round, and how it ended.
final class PGRefreshCaller {
    /// The account's number.
    let account: Int
    /// The process.
    let child: ChildProcess
    /// Where its standard output goes.
    let output: String
    /// Where its standard error goes.
    let errors: String
    /// When it was started.
    let started: Date
    /// When the bench saw it end (polled every 2 ms or so), or `nil` while it runs.
    var ended: Date?
    /// When the bench killed it with SIGKILL, if it did.
    var killedAt: Date?

    /// Starts `hardtack ARGUMENTS` for account number `account`, its output in `directory`.
    init(account: Int, hardtack: String, arguments: [String], environment: [String: String], directory: String) throws {
        self.account = account
        let name = directory + "/" + UUID().uuidString
        output = name + ".out"
        errors = name + ".err"
        started = Date()
        child = try ChildProcess.spawn(
            hardtack, arguments, environment: environment, stdout: .file(output), stderr: .file(errors))
    }

    /// Whether it has ended; records when it is first seen ended.
    func poll() -> Bool {
        if ended != nil { return true }
        guard child.wait(timeout: 0) != nil else { return false }
        ended = Date()
        return true
    }

    /// Its exit status, or `nil` when a signal ended it (or it still runs).
    var status: Int32? {
        if case .exited(let code)? = child.wait(timeout: 0) { return code }
        return nil
    }

    /// The refreshes it says it made (`refreshes by this process: N`), or `nil` when it did not say.
    var refreshes: Int? {
        let text = String(decoding: readFile(output), as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("refreshes by this process: ") })
        else { return nil }
        return Int(line.split(separator: " ").last ?? "")
    }

    /// The end of what it wrote to standard error, for a report.
    var errorText: String {
        String(decoding: readFile(errors), as: UTF8.self).split(separator: "\n").suffix(2).joined(separator: " | ")
    }
}
