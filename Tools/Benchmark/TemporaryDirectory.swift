#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation

/// A private (0700) directory for the run's stores, removed with everything in it at the end.
final class TemporaryDirectory {
    /// The directory's path.
    let path: String

    /// Creates `hardtack-bench-XXXXXX` under `parent`.
    init(under parent: String) throws {
        var template = Array((parent + "/hardtack-bench-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw BenchmarkOptions.UsageError(description: "cannot create a directory under \(parent)")
        }
        path = String(cString: made)
    }

    /// A new empty subdirectory (0700).
    func subdirectory(_ name: String) -> String {
        let sub = path + "/" + name
        try? FileManager.default.removeItem(atPath: sub)
        mkdir(sub, 0o700)
        return sub
    }

    /// Removes a subdirectory and its stores.
    func remove(_ sub: String) {
        try? FileManager.default.removeItem(atPath: sub)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
