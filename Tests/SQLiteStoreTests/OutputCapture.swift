#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import TestSupport

/// Serializes captures: two at once would each save the other's redirection as "the original" and
/// leave the process writing into a deleted file.
private let captureLock = NSLock()

/// Runs `body` with the process's standard output and error redirected to a file, and returns what
/// was written. Other tests run in parallel in this process, so their output may land here too:
/// check the capture for what `body` must never print, not for emptiness.
func capturingOutput<Result>(in directory: TemporaryDirectory, _ body: () throws -> Result) rethrows
    -> (result: Result, output: [UInt8])
{
    captureLock.lock()
    defer { captureLock.unlock() }
    let path = directory.file("captured-output")
    let capture = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    precondition(capture >= 0, "cannot create \(path)")
    fflush(nil)
    let savedOutput = dup(STDOUT_FILENO)
    let savedError = dup(STDERR_FILENO)
    dup2(capture, STDOUT_FILENO)
    dup2(capture, STDERR_FILENO)
    defer {
        fflush(nil)
        dup2(savedOutput, STDOUT_FILENO)
        dup2(savedError, STDERR_FILENO)
        close(savedOutput)
        close(savedError)
        close(capture)
    }
    let result = try body()
    fflush(nil)
    return (result, FileBytes.read(path))
}
