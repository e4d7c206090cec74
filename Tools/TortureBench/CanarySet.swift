import Foundation

/// Canary values (secrets, attribute values, tokens) and every form in which a leak could show them:
/// UTF-8, UTF-16 in both byte orders, hex and base64.
struct CanarySet {
    private var needles: [(name: String, form: String, bytes: [UInt8])] = []

    /// Adds a canary under `name`.
    mutating func add(_ name: String, _ value: String) {
        let utf8 = Array(value.utf8)
        needles.append((name, "utf-8", utf8))
        needles.append((name, "utf-16le", value.utf16.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8($0 >> 8)] }))
        needles.append((name, "utf-16be", value.utf16.flatMap { [UInt8($0 >> 8), UInt8(truncatingIfNeeded: $0)] }))
        needles.append((name, "hex", Array(hex(utf8).utf8)))
        needles.append((name, "base64", Array(Data(utf8).base64EncodedString().utf8)))
    }

    /// How many canaries it holds.
    var count: Int { needles.count / 5 }

    /// The canaries found in `bytes`, as `name (form)`.
    func hits(in bytes: [UInt8]) -> [String] {
        needles.filter { contains(bytes, $0.bytes) }.map { "\($0.name) (\($0.form))" }
    }
}
