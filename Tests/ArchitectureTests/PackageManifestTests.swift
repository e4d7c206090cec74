import Foundation
import Testing

/// What an adopter's package needs of this one's manifest.
@Suite struct PackageManifestTests {
    @Test func noTargetUsesUnsafeFlagsSoThePackageCanBeAVersionedDependency() throws {
        let manifest = try String(contentsOf: SourceTree.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let code = manifest.split(separator: "\n").map { SourceTree.code(of: $0) }.joined(separator: "\n")
        #expect(code.contains(".target("), "the manifest was read")
        #expect(!code.contains("unsafeFlags"), "SwiftPM refuses unsafe flags in a package depended on by version")
    }
}
