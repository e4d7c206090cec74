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

    /// The `hardtack` executable of the same configuration in the product's package at `package`: the
    /// bench lives in a package of its own under `Tools/`, which builds only the libraries it links, so
    /// `Tools/torture` builds the executable in the product's package first.
    static func hardtack(inPackage package: String) -> String {
        let configuration = URL(fileURLWithPath: ownExecutable).deletingLastPathComponent().lastPathComponent
        return URL(fileURLWithPath: package).appendingPathComponent(".build/\(configuration)/hardtack").path
    }
}
