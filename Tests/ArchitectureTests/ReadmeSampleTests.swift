import Foundation
import TestSupport
import Testing

/// The README's Swift sample, compiled as an adopter would compile it: in a package of its own that
/// depends on this checkout by path, through the library products alone. It can never rot: a change to
/// the API it uses fails here. And what those products link holds no development or demo code.
@Suite(.serialized) struct ReadmeSampleTests {
    /// The Swift code block that follows `<!-- the sample ReadmeSampleTests compiles -->` in README.md.
    static func sample() throws -> String {
        let readme = try String(contentsOf: SourceTree.root.appendingPathComponent("README.md"), encoding: .utf8)
        let marker = "<!-- the sample ReadmeSampleTests compiles -->"
        guard let start = readme.range(of: marker),
            let open = readme.range(of: "```swift\n", range: start.upperBound..<readme.endIndex),
            let close = readme.range(of: "\n```", range: open.upperBound..<readme.endIndex)
        else { throw SampleError("README.md has no Swift block after \(marker)") }
        return String(readme[open.upperBound..<close.lowerBound])
    }

    @Test(.timeLimit(.minutes(20))) func theReadmeSampleCompilesAgainstTheLibraryProducts() async throws {
        let code = try Self.sample()
        #expect(code.split(separator: "\n").count <= 25, "the sample is meant to be short")
        let package = FileManager.default.temporaryDirectory.appendingPathComponent("hardtack-readme-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: package) }
        let sources = package.appendingPathComponent("Sources/Backend")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        let manifest = """
            // swift-tools-version:6.0
            import PackageDescription
            let package = Package(
                name: "Backend", platforms: [.macOS(.v15)],
                dependencies: [.package(name: "Hardtack", path: \(String(reflecting: SourceTree.root.path)))],
                targets: [
                    .executableTarget(
                        name: "Backend",
                        dependencies: [
                            .product(name: "HardtackApp", package: "Hardtack"),
                            .product(name: "HardtackStore", package: "Hardtack"),
                        ])
                ])
            """
        try manifest.write(to: package.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try code.write(to: sources.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
        // A scratch folder of the checkout's own (git-ignored), so that a second run reuses the first's build.
        let scratch = SourceTree.root.appendingPathComponent(".build-readme-sample").path
        let build = try await Self.swift(["build", "--package-path", package.path, "--scratch-path", scratch])
        #expect(build.status == 0, "the README sample does not compile:\n\(build.output.suffix(3000))")
    }

    @Test(.timeLimit(.minutes(5))) func theLibraryProductsLinkNoDevelopmentOrDemoCode() async throws {
        // A scratch folder of its own: the checkout's `.build` is locked by the `swift test` running this.
        let scratch = SourceTree.root.appendingPathComponent(".build-describe").path
        let described = try await Self.swift([
            "package", "--package-path", SourceTree.root.path, "--scratch-path", scratch, "describe", "--type", "json",
        ])
        #expect(described.status == 0, "\(described.output.suffix(2000))")
        let json = Data(described.output.drop { $0 != "{" }.utf8)
        let package = try JSONDecoder().decode(Description.self, from: json)
        let targets = Dictionary(uniqueKeysWithValues: package.targets.map { ($0.name, $0.target_dependencies ?? []) })
        for product in ["HardtackStore", "HardtackApp"] {
            let roots = try #require(package.products.first { $0.name == product }?.targets, "no product \(product)")
            var closure = Set<String>()
            var pending = roots
            while let next = pending.popLast() {
                guard closure.insert(next).inserted else { continue }
                pending += targets[next] ?? []
            }
            #expect(closure.contains("Domain"))
            for development in ["DevelopmentServers", "DevelopmentComposition", "CommandLineKit", "hardtack", "TestSupport"] {
                #expect(!closure.contains(development), "\(product) links \(development)")
            }
        }
    }

    /// What `swift package describe --type json` says of products and targets (the parts read here).
    struct Description: Decodable {
        struct Product: Decodable {
            let name: String
            let targets: [String]
        }
        struct Target: Decodable {
            let name: String
            let target_dependencies: [String]?
        }
        let products: [Product]
        let targets: [Target]
    }

    struct SampleError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Runs `swift` with `arguments`, its output and errors together. The build is read and waited for
    /// on a thread of its own: it takes minutes, and one of Swift's few shared threads held that long
    /// starves every other test's tasks.
    static func swift(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = await DedicatedThread.run {
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return output
        }
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}
