import BenchSupport

/// Generates command lines for `hardtack`: real commands, verbs and options with awkward values, raw
/// bytes that are not UTF-8, odd standard input and environment.
enum CommandLineFuzz {
    private static let commands = [
        "keychain", "keychain", "keychain", "signin", "status", "me", "refresh", "signout", "migrate-legacy", "demo",
        "serve", "help", "--help", "-h", "bogus", "", "KEYCHAIN", "--store",
    ]
    private static let verbs = [
        "add-generic-password", "find-generic-password", "delete-generic-password", "add-internet-password",
        "find-internet-password", "delete-internet-password", "dump", "verify", "change-passphrase", "rotate-key",
        "nope", "",
    ]
    private static let options = [
        "--store", "--key-file", "--passphrase-file", "--key-env", "--key-credential", "--access-group", "-s", "-a",
        "-l", "-j", "-w", "-U", "-r", "-P", "-p", "-d", "-t", "--json", "--server", "--style", "--client-id",
        "--username", "--password-stdin", "--provider", "--identity-token-stdin", "--concurrent", "--port",
        "--access-token-lifetime", "--refreshed-access-token-lifetime", "--refresh-token-in-body", "--bare-authorization",
        "--new-passphrase-file", "--new-key-file", "--help", "-h", "--", "-", "-x", "--bogus", "-ww",
    ]

    /// Arguments (without the program name), standard input, and environment additions.
    static func generate(
        _ random: inout SeededGenerator, sandbox: String, store: String, server: String
    )
        -> (arguments: [[UInt8]], input: [UInt8]?, environment: [String: String])
    {
        let values: [String] = [
            store, sandbox + "/other/x.db", sandbox, "/dev/null", "/", store + ".key", sandbox + "/passphrase",
            sandbox + "/legacy.json", "", "-", "0", "-1", "65536", "99999999999999999999", "1.5", "1000", "oauth",
            "header", "apple", "google", "hardtack-cli", "alice", String(repeating: "x", count: 10_000), "é😀\u{202E}",
            "\u{1}\u{7F}\u{1B}[31m", server, "http://127.0.0.1:1", "http://", "ftp://x", "http://[::1", "HARDTACK_KEY",
            "https://example.invalid", "svc", "a", "https", "443", "/login", "-w", "--store", "%s%n%x",
        ]
        var arguments: [[UInt8]] = []
        // Half the lines are plausible (a real command with the options it takes, values picked at
        // random), so the fuzz reaches past option parsing; the other half are anything.
        if random.chance(0.5) {
            let value = { (random: inout SeededGenerator) in
                random.chance(0.6) ? random.pick(["svc", "a", "alice", "x"]) : random.pick(values)
            }
            let shapes: [[String]] = [
                [
                    "keychain", "--store", store, "add-generic-password", "-s", value(&random), "-a", value(&random),
                    "-w", "-",
                ],
                [
                    "keychain", "--store", store, "add-generic-password", "-s", value(&random), "-a", value(&random),
                    "-l", value(&random), "-U", "-w", value(&random),
                ],
                ["keychain", "--store", store, "find-generic-password", "-s", value(&random), "-w"],
                ["keychain", "--store", store, "find-generic-password", "-a", value(&random)],
                [
                    "keychain", "--store", store, "add-internet-password", "-s", value(&random), "-a", value(&random),
                    "-r", random.pick(["https", "http", "ftp", "x"]), "-P", random.pick(["443", "0", "-1", "70000"]),
                    "-p", "/x", "-w", "-",
                ],
                ["keychain", "--store", store, "find-internet-password", "-s", value(&random)],
                ["keychain", "--store", store, "delete-generic-password", "-s", value(&random)],
                ["keychain", "--store", store, "dump", "--json"], ["keychain", "--store", store, "verify"],
                [
                    "keychain", "--store", sandbox + "/rekeyed/store.db", "change-passphrase", "--new-passphrase-file",
                    random.pick([sandbox + "/passphrase", value(&random)]),
                ],
                ["signin", "--store", store, "--server", server, "--username", value(&random), "--password-stdin"],
                [
                    "signin", "--store", store, "--server", server, "--style", "header", "--provider",
                    random.pick(["apple", "google", value(&random)]), "--identity-token-stdin",
                ],
                [
                    "me", "--store", store, "--server", server, "--concurrent",
                    random.pick(["1", "5", "50", "0", "1001"]),
                ],
                ["refresh", "--store", store, "--server", random.pick([server, value(&random)])],
                ["signout", "--store", store, "--server", server], ["status", "--store", store],
                [
                    "migrate-legacy", "--store", sandbox + "/legacy-store.db",
                    random.pick([sandbox + "/legacy.json", value(&random)]),
                ],
                ["demo", "--style", random.pick(["oauth", "header", value(&random)])],
                [
                    "serve", "--port", random.pick(["0", "-1", "65536", value(&random)]), "--access-token-lifetime",
                    random.pick(["1", "0", "86401", value(&random)]),
                ],
            ]
            arguments = random.pick(shapes).map { Array($0.utf8) }
            if random.chance(0.3) {
                arguments.insert(
                    Array(random.pick(options).utf8), at: Int.random(in: 1...arguments.count, using: &random))
            }
        } else {
            let command = random.pick(commands)
            arguments.append(Array(command.utf8))
            if command == "keychain" && random.chance(0.9) {
                if random.chance(0.5) { arguments += [Array("--store".utf8), Array(store.utf8)] }
                arguments.append(Array(random.pick(verbs).utf8))
            }
        }
        for _ in 0..<(arguments.count > 3 ? 0 : Int.random(in: 0...8, using: &random)) {
            switch Int.random(in: 0..<10, using: &random) {
            case 0...3:
                arguments.append(Array(random.pick(options).utf8))
                arguments.append(Array(random.pick(values).utf8))
            case 4, 5:
                arguments.append(Array(random.pick(options).utf8))
            case 6:
                arguments.append(Array((random.pick(options) + "=" + random.pick(values)).utf8))
            case 7:
                arguments.append(Array(random.pick(values).utf8))
            case 8:
                arguments.append(Mutations.mutate(Array(random.pick(options).utf8), &random))
            default:
                // Not UTF-8, or not text at all (no NUL: an argument cannot hold one).
                arguments.append(random.bytes(Int.random(in: 1...40, using: &random)).map { $0 == 0 ? 0xFF : $0 })
            }
        }
        var input: [UInt8]?
        switch Int.random(in: 0..<10, using: &random) {
        case 0...3: input = nil
        case 4, 5: input = Array("wonderland".utf8)
        case 6: input = Array("s\n".utf8)
        case 7: input = random.bytes(Int.random(in: 0...2000, using: &random))
        case 8: input = random.chance(0.1) ? Array(repeating: 0x61, count: (1 << 20) + 10) : []
        default: input = Array("{\"Authorization\":\"Bearer x\"}".utf8)
        }
        var environment: [String: String] = [:]
        if random.chance(0.2) {
            environment["HARDTACK_PASSPHRASE"] = random.pick(["fuzz passphrase", "", "x", random.hex(20)])
        }
        if random.chance(0.15) {
            environment["HARDTACK_SERVER"] = random.pick([server, "http://127.0.0.1:1", "not a url", ""])
        }
        if random.chance(0.1) { environment["HARDTACK_ARGON2_COST"] = random.pick(["", "moderate", "bogus"]) }
        if random.chance(0.1) { environment["XDG_DATA_HOME"] = random.pick(["relative/path", sandbox + "/xdg", ""]) }
        if random.chance(0.05) { environment["CREDENTIALS_DIRECTORY"] = sandbox }
        if random.chance(0.2) {
            environment["HARDTACK_KEY"] = random.pick([random.hex(64), random.hex(63), "not base64!", ""])
        }
        return (arguments, input, environment)
    }
}
