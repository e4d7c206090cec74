#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation

/// Writes small executable scripts for tests to start. The file is written through a descriptor opened
/// with `O_CLOEXEC`: a test that writes a script while another test of the same process spawns a child
/// would otherwise let that child inherit the write descriptor, and while the child lives, running the
/// script fails with "Text file busy" (ETXTBSY) — which a `hardtack serve` started by another test can
/// make last for seconds. Foundation's atomic write leaves its descriptor inheritable.
public enum ExecutableScript {
    /// A failure to write the script.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed.
        public let description: String
    }

    /// Writes `text` to `path` (replacing it) with mode 0700.
    public static func write(_ text: String, to path: String) throws {
        let temporary = path + ".tmp-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o700)
        guard descriptor >= 0 else { throw Failure(description: "cannot create \(temporary): errno \(errno)") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { buffer in
            #if canImport(Glibc)
                Glibc.write(descriptor, buffer.baseAddress, buffer.count)
            #else
                Darwin.write(descriptor, buffer.baseAddress, buffer.count)
            #endif
        }
        close(descriptor)
        guard written == bytes.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw Failure(description: "cannot write \(path): errno \(errno)")
        }
    }
}
