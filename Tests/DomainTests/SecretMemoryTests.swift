#if canImport(Glibc)
    import Glibc
#endif
@testable import Domain
import Foundation
import Testing

/// Where ``SecretBytes`` keep their bytes (``SecretMemory``): mappings the kernel leaves out of core
/// dumps, locked in RAM where the limit allows, between inaccessible guard pages; slots reused, never
/// two secrets in one.
@Suite struct SecretMemoryTests {
    /// The lines of /proc/self/smaps for the mapping that holds `address`: its header line, and its
    /// `VmFlags` (two-letter flags: `dd` for "do not dump", `lo` for locked).
    static func mapping(holding address: UInt) -> (header: String, flags: Set<String>)? {
        // Read to the end: a /proc file reports a size of zero.
        guard let data = FileHandle(forReadingAtPath: "/proc/self/smaps")?.readDataToEndOfFile() else { return nil }
        let smaps = String(decoding: data, as: UTF8.self)
        var current: String?
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
                let bounds = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                current = bounds.count == 2 && bounds[0] <= address && address < bounds[1] ? String(line) : nil
            } else if let header = current, line.hasPrefix("VmFlags:") {
                return (header, Set(fields.dropFirst().map(String.init)))
            }
        }
        return nil
    }

    /// The address of `secret`'s bytes.
    static func address(of secret: SecretBytes) -> UInt {
        secret.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
    }

    @Test(arguments: [1, 31, 32, 100, 4096, 4097, 150_000])
    func aSecretLivesInMemoryLeftOutOfCoreDumps(_ count: Int) throws {
        let secret = SecretBytes(count: count) { $0.initializeMemory(as: UInt8.self, repeating: 0x5A) }
        let mapping = try #require(Self.mapping(holding: Self.address(of: secret)))
        #expect(mapping.flags.contains("dd"), "\(mapping.header)")
        // Readable and writable, private, anonymous: not a file's pages.
        #expect(mapping.header.split(separator: " ")[1] == "rw-p")
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(__RLIMIT_MEMLOCK.rawValue), &limit)
        // The sanitizers make mlock do nothing (they cannot lock their shadow memory): no `lo` under them.
        let sanitized = [String](["__asan_init", "__tsan_init"]).contains { dlsym(dlopen(nil, RTLD_NOW), $0) != nil }
        if !sanitized && (geteuid() == 0 || limit.rlim_cur >= 16 << 20) {
            #expect(mapping.flags.contains("lo"), "\(mapping.header)")
        }
        #expect(secret.withUnsafeBytes { $0.allSatisfy { $0 == 0x5A } })
    }

    /// The page just before a secret's mapping and the one just after it are inaccessible: a read or
    /// write running off either end faults instead of reaching other memory.
    @Test(arguments: [64, 150_000])
    func guardPagesSurroundEachMapping(_ count: Int) throws {
        let secret = SecretBytes(count: count) { $0.initializeMemory(as: UInt8.self, repeating: 1) }
        let data = try #require(FileHandle(forReadingAtPath: "/proc/self/maps")).readDataToEndOfFile()
        let maps = String(decoding: data, as: UTF8.self).split(separator: "\n")
        let address = Self.address(of: secret)
        let ranges = maps.map { line -> (UInt, UInt, String) in
            let fields = line.split(separator: " ")
            let bounds = fields[0].split(separator: "-").map { UInt($0, radix: 16) ?? 0 }
            return (bounds[0], bounds[1], String(fields[1]))
        }
        let index = try #require(ranges.firstIndex { $0.0 <= address && address < $0.1 })
        #expect(index > 0 && ranges[index - 1].1 == ranges[index].0 && ranges[index - 1].2 == "---p")
        #expect(index + 1 < ranges.count && ranges[index + 1].0 == ranges[index].1 && ranges[index + 1].2 == "---p")
    }

    /// Many secrets of every size at once, freed and made again from several threads: each keeps its own
    /// bytes (no slot handed to two at once).
    @Test func slotsAreNeverShared() async throws {
        await withTaskGroup(of: Bool.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var kept: [(SecretBytes, UInt8)] = []
                    for round in 0..<1000 {
                        let count = [1, 20, 33, 200, 700, 3000, 5000][round % 7]
                        let value = UInt8(truncatingIfNeeded: worker * 31 + round)
                        kept.append((SecretBytes(count: count) { $0.initializeMemory(as: UInt8.self, repeating: value) }, value))
                        if kept.count > 50 { kept.removeFirst(25) }
                        for (secret, value) in kept where !secret.withUnsafeBytes({ $0.allSatisfy { $0 == value } }) {
                            return false
                        }
                    }
                    return true
                }
            }
            for await intact in group { #expect(intact) }
        }
    }
}
