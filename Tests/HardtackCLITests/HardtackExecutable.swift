import Foundation

/// Finds the built `hardtack` executable: it sits in the same build products directory as the running
/// test bundle, whatever the scratch path (`.build`, `.build-cli`, …) and the configuration.
enum HardtackExecutable {
    /// The executable's path, or `nil` when it cannot be found (set `HARDTACK_EXECUTABLE` to point at it).
    static let path: String? = locate()

    private static func locate() -> String? {
        if let explicit = ProcessInfo.processInfo.environment["HARDTACK_EXECUTABLE"], !explicit.isEmpty {
            return explicit
        }
        var directories: [URL] = []
        // macOS: the test bundle is `<products>/HardtackPackageTests.xctest`, loaded by an xctest runner.
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        // Linux: the test bundle is itself the executable, `<products>/HardtackPackageTests.xctest`.
        if let running = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append(URL(fileURLWithPath: running).deletingLastPathComponent())
        }
        directories.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        directories.append(Bundle.main.bundleURL)
        directories.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for directory in directories {
            let candidate = directory.appendingPathComponent("hardtack").path
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue,
                FileManager.default.isExecutableFile(atPath: candidate)
            {
                return candidate
            }
        }
        return nil
    }
}
