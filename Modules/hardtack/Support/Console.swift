#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import CommandLineKit
import Domain
import Epoll
import Synchronization

/// Standard input, output and error as bytes, unbuffered, so output order is the order of calls and a
/// secret goes out without ever becoming a `String`.
enum Console {
    /// The most `-w -` reads from standard input.
    static let maxInputBytes = 1 << 20

    /// The `errno` of the first write to standard output that failed (a full disk, `/dev/full`), or 0.
    private static let outputErrno = Mutex<Int32>(0)

    /// Why standard output could not be written, if it could not: the output is then incomplete, and
    /// the process must not exit 0.
    static var outputFailure: String? {
        let code = outputErrno.withLock { $0 }
        return code == 0 ? nil : "cannot write to standard output: \(String(cString: strerror(code))); the output is incomplete"
    }

    /// Standard output and standard error for the command framework: help and results, and
    /// `hardtack: `-prefixed errors.
    static let output = ProgramOutput(standardOutput: { print($0) }, standardError: { error($0) })

    /// Writes `text` and a newline to standard output.
    static func print(_ text: String) {
        emit(Array((text + "\n").utf8), to: STDOUT_FILENO)
    }

    /// Writes `hardtack: message` and a newline to standard error.
    static func error(_ message: String) {
        emit(Array("hardtack: \(message)\n".utf8), to: STDERR_FILENO)
    }

    /// Writes `line` as it is, and a newline, to standard error (a log line a machine reads).
    static func log(_ line: String) {
        emit(Array((line + "\n").utf8), to: STDERR_FILENO)
    }

    /// Where the gateway's request lines go: standard error, the lines of one event-loop pass in one write.
    static let requestLog = PassBatchedWriter(descriptor: STDERR_FILENO)

    /// Writes the secret's bytes and a newline to standard output.
    static func printSecret(_ secret: SecretBytes) {
        secret.withUnsafeBytes { bytes in emit(bytes, to: STDOUT_FILENO) }
        emit([0x0A], to: STDOUT_FILENO)
    }

    /// Whether standard input is a terminal (a secret is then prompted for, with echo off).
    static var inputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Reads a secret: from a terminal, after `prompt` on standard error with echo turned off, one
    /// line (`nil` when longer than 4,095 bytes); otherwise all of standard input, as
    /// ``readSecretFromStandardInput()`` does.
    static func readSecret(prompt: String) -> SecretBytes? {
        guard inputIsTerminal else { return readSecretFromStandardInput() }
        return HiddenEcho.run(on: STDIN_FILENO) {
            // The prompt only once echo is off: whatever is typed after it is never shown.
            emit(Array(prompt.utf8), to: STDERR_FILENO)
            defer { emit([0x0A], to: STDERR_FILENO) }
            return readLine(upTo: 4095)
        }
    }

    /// What a secret typed twice at a terminal gave.
    enum TypedTwice {
        /// The same secret both times.
        case typed(SecretBytes)
        /// Nothing, or a line longer than 4,095 bytes, the first time.
        case empty, tooLong
        /// Two different entries.
        case differ
    }

    /// Reads a secret at a terminal twice, after `prompt` and then `Type it again: `, echo off both times.
    static func readSecretTwice(prompt: String) -> TypedTwice {
        guard let first = readSecret(prompt: prompt) else { return .tooLong }
        guard !first.isEmpty else { return .empty }
        guard let again = readSecret(prompt: "Type it again: "), again == first else { return .differ }
        return .typed(first)
    }

    /// Reads one line from standard input into wiped memory: `nil` when it is longer than `limit` bytes
    /// (the rest of the line is read and dropped: never a silently shortened secret).
    private static func readLine(upTo limit: Int) -> SecretBytes? {
        var line = [UInt8](repeating: 0, count: limit + 1)
        defer { line.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        var count = 0
        while true {
            var byte: UInt8 = 0
            let got = read(STDIN_FILENO, &byte, 1)
            if got < 0 && errno == EINTR { continue }
            if got <= 0 || byte == 0x0A { break }
            if count < line.count { line[count] = byte }
            count += 1
            byte = 0
        }
        guard count < line.count else { return nil }
        return SecretBytes(line[..<count])
    }

    /// Reads all of standard input (at most ``maxInputBytes``) into wiped-on-release memory, without one
    /// trailing newline; `nil` when it is longer or cannot be read.
    static func readSecretFromStandardInput() -> SecretBytes? {
        var buffer = [UInt8](repeating: 0, count: maxInputBytes + 1)
        defer { buffer.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        var total = 0
        while total < buffer.count {
            let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress! + total, $0.count - total) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return nil }
            if count == 0 { break }
            total += count
        }
        guard total <= maxInputBytes else { return nil }
        if total > 0 && buffer[total - 1] == 0x0A { total -= 1 }
        return SecretBytes(buffer[..<total])
    }

    private static func emit(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { emit($0, to: descriptor) }
    }

    private static func emit(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) {
        guard var base = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let written = write(descriptor, base, left)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                let code = written < 0 ? errno : EIO
                if descriptor == STDOUT_FILENO { outputErrno.withLock { if $0 == 0 { $0 = code } } }
                return
            }
            base += written
            left -= written
        }
    }
}
