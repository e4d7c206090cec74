import Foundation
import TestSupport
import Testing

/// Runs `hardtack` with a pseudo-terminal as its standard input, output and error, like a person at a
/// terminal: waits for each prompt before typing the answer, and keeps everything the terminal showed
/// (so an echoed secret would be in ``transcript``).
final class PseudoTerminal {
    /// Everything the terminal showed.
    private(set) var transcript = ""
    private let master: Int32
    private let process = Process()

    /// Starts `hardtack ARGUMENTS` on a new pseudo-terminal, with `environment` added to the sandbox's.
    init(_ sandbox: CLISandbox, _ arguments: [String], environment: [String: String] = [:]) throws {
        let executable = try #require(HardtackExecutable.path)
        // posix_openpt and friends need _XOPEN_SOURCE, which Swift's Glibc module does not set: the same
        // through /dev/ptmx and its two ioctls (unlock, number).
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        // TIOCSPTLCK and TIOCGPTN (macros Swift does not import), as Linux numbers them on x86-64 and arm64.
        #expect(master >= 0 && ioctl(master, 0x4004_5431, &unlock) == 0)
        #expect(ioctl(master, 0x8004_5430, &number) == 0)
        // Close-on-exec: only this program gets it (as its standard streams), not what other tests start meanwhile.
        let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(slave >= 0)
        let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": sandbox.directory.file("home"), "LANG": "C"]
            .merging(environment) { $1 }
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        try handle.close()
    }

    deinit {
        if process.isRunning { process.terminate() }
        close(master)
    }

    /// Waits until the terminal has shown `text`, at most 60 s: a bound only against a hang, since under a
    /// sanitizer on a busy machine a prompt that comes in milliseconds can take seconds. Between looks it
    /// sleeps as a task, not holding one of Swift's few shared threads in `poll`.
    func waitFor(_ text: String) async -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while !transcript.contains(text) {
            guard Date() < deadline else { return false }
            if readSome() { continue }
            // The program's last output is in the terminal before it ends: nothing more is coming.
            guard process.isRunning else { return readSome() && transcript.contains(text) }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    /// Types `text` and Return.
    func type(_ text: String) {
        let bytes = Array((text + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Sends `signal` to the program, as a key at the terminal would (Ctrl-C: SIGINT).
    func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Whether the terminal echoes what is typed (its settings, read through the master side).
    var echoes: Bool {
        var settings = termios()
        guard tcgetattr(master, &settings) == 0 else { return false }
        return settings.c_lflag & tcflag_t(ECHO) != 0
    }

    /// How the program ended: by a signal (and which), or with an exit status.
    var endedBySignal: Int32? {
        process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil
    }

    /// Waits for the program to end (stopping it after 60 s, a bound only against a hang), reads what it still
    /// showed, and returns its exit status.
    func finish() async -> Int32 {
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline {
            if !readSome() { try? await Task.sleep(for: .milliseconds(10)) }
        }
        while readSome() {}
        if process.isRunning { process.terminate() }
        let process = process
        await DedicatedThread.run { process.waitUntilExit() }
        return process.terminationStatus
    }

    /// Reads what is there now; `false` when nothing was (or the terminal closed).
    private func readSome() -> Bool {
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
        guard count > 0 else { return false }
        transcript += String(decoding: buffer[..<count], as: UTF8.self)
        return true
    }
}
