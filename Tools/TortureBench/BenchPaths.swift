import Foundation

/// Where the bench's executables are.
enum BenchPaths {
    /// This executable, resolved through `/proc/self/exe` so that workers start the same build.
    static let ownExecutable: String = {
        if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return resolved
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
    }()

    /// The `hardtack` executable built beside this one.
    static var siblingHardtack: String {
        URL(fileURLWithPath: ownExecutable).deletingLastPathComponent().appendingPathComponent("hardtack").path
    }
}
