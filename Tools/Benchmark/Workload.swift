import BenchSupport

/// Everything a workload run needs, prepared before any timer starts: the items' accounts and secrets,
/// and the seeded random orders of the gets, updates and deletes.
struct Workload {
    /// The service of every item.
    static let service = "com.example.api"
    /// The size of every secret: a JWT-sized access token.
    static let secretLength = 614

    /// How many items are put (and how many gets, updates and deletes follow).
    let count: Int
    /// Each item's account, `user<7 digits>@example.com`, all distinct.
    let accounts: [String]
    /// Each item's secret as first put.
    let secrets: [[UInt8]]
    /// The item each get reads (random, with repeats).
    let getOrder: [Int]
    /// The item each update changes (random, with repeats).
    let updateOrder: [Int]
    /// The new secret of each update.
    let updateSecrets: [[UInt8]]
    /// The order the items are deleted in (a random permutation).
    let deleteOrder: [Int]

    /// A workload of `count` items drawn from `generator`.
    init(count: Int, generator: inout SeededGenerator) {
        self.count = count
        accounts = Self.accounts(count, generator: &generator)
        secrets = (0..<count).map { _ in Self.secret(&generator) }
        getOrder = (0..<count).map { _ in Int.random(in: 0..<count, using: &generator) }
        updateOrder = (0..<count).map { _ in Int.random(in: 0..<count, using: &generator) }
        updateSecrets = (0..<count).map { _ in Self.secret(&generator) }
        deleteOrder = Array(0..<count).shuffled(using: &generator)
    }

    /// `count` distinct accounts with random 7-digit numbers.
    static func accounts(_ count: Int, generator: inout SeededGenerator) -> [String] {
        precondition(count <= 5_000_000, "at most 5,000,000 distinct 7-digit accounts")
        var seen = Set<Int>(minimumCapacity: count)
        var accounts: [String] = []
        accounts.reserveCapacity(count)
        while accounts.count < count {
            let number = Int.random(in: 0..<10_000_000, using: &generator)
            guard seen.insert(number).inserted else { continue }
            accounts.append(account(number))
        }
        return accounts
    }

    /// `user<number as 7 digits>@example.com`.
    static func account(_ number: Int) -> String {
        let digits = String(number)
        return "user" + String(repeating: "0", count: max(0, 7 - digits.count)) + digits + "@example.com"
    }

    /// A JWT-shaped secret: 614 characters of the base64url alphabet.
    static func secret(_ generator: inout SeededGenerator) -> [UInt8] {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        return generator.bytes(secretLength).map { alphabet[Int($0 & 63)] }
    }
}
