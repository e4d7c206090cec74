// swift-tools-version:6.0
import PackageDescription

/// Settings shared by every Swift target: Swift 6 language mode (strict concurrency) and no
/// tolerance for warnings in the project's own code.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Hardtack",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "hardtack", targets: ["hardtack"]),
        .executable(name: "hardtack-bench", targets: ["hardtack-bench"]),
    ],
    targets: [
        // C libraries from the system (Debian: libsqlite3-dev, libsodium-dev).
        .systemLibrary(
            name: "CSQLite", path: "Modules/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .systemLibrary(
            name: "CSodium", path: "Modules/CSodium", pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]),
        .systemLibrary(
            name: "CLibPQ", path: "Modules/CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"]), .brew(["libpq"])]),
        .systemLibrary(
            name: "CCurl", path: "Modules/CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]),
        // OpenSSL's libcrypto, for the RSA and P-256 signatures of ID tokens (libsodium has neither).
        .systemLibrary(
            name: "COpenSSL", path: "Modules/COpenSSL", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),

        // The layers. Each depends only on the one beneath it, so a wrong import does not compile.
        .target(name: "Domain", path: "Modules/Domain", swiftSettings: swiftSettings),
        .target(name: "Data", dependencies: ["Domain"], path: "Modules/Data", swiftSettings: swiftSettings),

        // The secure item store: a backend-neutral core (crypto envelope, key hierarchy, blind indexes,
        // attribute codec, rows digest and the Keychain semantics) and one adapter target per backend.
        .target(
            name: "StoreCore", dependencies: ["Data", "Domain", "CSodium"], path: "Modules/StoreCore",
            swiftSettings: swiftSettings),
        // The page checksum of the SQLite adapter's VFS: CRC-32C with the CPU's instruction, in C of our own.
        // DWARF 4: valgrind 3.19 (Tools/profile) cannot read the DWARF 5 clang writes for C by default.
        .target(name: "CCRC32C", path: "Modules/CCRC32C", cSettings: [.unsafeFlags(["-gdwarf-4"])]),
        .target(
            name: "SQLiteStore", dependencies: ["StoreCore", "Data", "Domain", "CSQLite", "CSodium", "CCRC32C"],
            path: "Modules/SQLiteStore", swiftSettings: swiftSettings),
        // The store in memory, for one process (tests of the layers above; the port's contract in short).
        .target(
            name: "MemoryStore", dependencies: ["StoreCore", "Data", "Domain"], path: "Modules/MemoryStore",
            swiftSettings: swiftSettings),

        // The other adapters, by technology: HTTP over URLSession, the legacy preferences file and the
        // process identity; development-only servers (the loopback HTTP server and the embedded auth
        // server) in a target of their own, apart from production code.
        .target(name: "Locking", path: "Modules/Locking", swiftSettings: swiftSettings),
        .target(
            name: "URLSessionHTTP", dependencies: ["Data", "Locking"], path: "Modules/URLSessionHTTP",
            swiftSettings: swiftSettings),
        // HTTP over libcurl's easy interface: on Linux, where URLSession spins while it waits.
        .target(
            name: "CurlHTTP", dependencies: ["Data", "Locking", "CCurl"], path: "Modules/CurlHTTP",
            swiftSettings: swiftSettings),
        // JWS signatures (RS256, ES256), random bytes and SHA-256 over libcrypto: the adapter behind Data's
        // JWSSignatureVerifier port, and the embedded server's signing keys.
        .target(
            name: "OpenSSLCrypto", dependencies: ["Data", "Domain", "COpenSSL"], path: "Modules/OpenSSLCrypto",
            swiftSettings: swiftSettings),
        // The browser side of a native app's sign-in (RFC 8252): the one-shot loopback redirect listener
        // and the BROWSER / xdg-open launcher. Production code, apart from the development servers.
        .target(name: "BrowserRedirect", path: "Modules/BrowserRedirect", swiftSettings: swiftSettings),
        .target(
            name: "Infrastructure", dependencies: ["Data", "Domain"], path: "Modules/Infrastructure",
            swiftSettings: swiftSettings),
        .target(
            name: "DevelopmentServers", dependencies: ["Data", "Domain", "Locking", "CSodium", "OpenSSLCrypto"],
            path: "Modules/DevelopmentServers", swiftSettings: swiftSettings),
        .target(
            name: "Composition",
            dependencies: ["Domain", "Data", "Infrastructure", "StoreCore", "SQLiteStore", "PostgreSQLStore",
                "URLSessionHTTP", "CurlHTTP", "DevelopmentServers", "BrowserRedirect", "OpenSSLCrypto", "Locking"],
            path: "Modules/Composition", swiftSettings: swiftSettings),
        // The command-line framework (commands, typed options, help, exit statuses); knows nothing of the app.
        .target(name: "CommandLineKit", path: "Modules/CommandLineKit", swiftSettings: swiftSettings),
        // The store on PostgreSQL (libpq). Its connection layer has its own errors, translated by the adapter.
        .target(
            name: "PostgreSQLStore", dependencies: ["StoreCore", "Data", "Domain", "CLibPQ"],
            path: "Modules/PostgreSQLStore",
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "hardtack", dependencies: ["Composition", "Data", "Domain", "CommandLineKit"], path: "Modules/hardtack",
            swiftSettings: swiftSettings),

        // The benchmark (Tools/bench): the store's workload through Hardtack and straight against the C
        // libraries it wraps, so Hardtack's own overhead shows.
        .executableTarget(
            name: "hardtack-bench",
            dependencies: [
                "SQLiteStore", "PostgreSQLStore", "StoreCore", "Data", "Domain", "CSQLite", "CSodium", "CLibPQ",
                "BenchSupport",
            ],
            path: "Tools/Benchmark", swiftSettings: swiftSettings),
        // What the benchmark and the torture bench share: a seeded generator, so a printed seed
        // replays a run.
        .target(name: "BenchSupport", path: "Tools/BenchSupport", swiftSettings: swiftSettings),

        // Tests: one target per module, fakes in a shared support target.
        .target(
            name: "TestSupport", dependencies: ["Domain", "Data"], path: "Tests/TestSupport",
            swiftSettings: swiftSettings),
        .testTarget(
            name: "DomainTests", dependencies: ["Domain", "TestSupport"], path: "Tests/DomainTests",
            swiftSettings: swiftSettings),
        .testTarget(
            name: "DataTests",
            dependencies: ["Data", "Domain", "Infrastructure", "SQLiteStore", "StoreCore", "TestSupport", "OpenSSLCrypto"],
            path: "Tests/DataTests", swiftSettings: swiftSettings),
        // A raw SQLite connection to a store file, shared by the tamper tests and the torture bench:
        // the attacker (or the disk) that edits rows behind the store's back.
        .target(
            name: "RawSQLite", dependencies: ["CSQLite"], path: "Tests/RawSQLite", swiftSettings: swiftSettings),
        // The store's tests also link libsodium: tamper tests recompute header and page checksums, as an
        // attacker with write access would.
        .testTarget(
            name: "InfrastructureTests",
            dependencies: [
                "Infrastructure", "SQLiteStore", "StoreCore", "Data", "Domain", "TestSupport", "RawSQLite", "CSodium",
                "CCRC32C",
            ],
            path: "Tests/InfrastructureTests", exclude: ["Fixtures"], swiftSettings: swiftSettings),
        .testTarget(
            name: "MemoryStoreTests", dependencies: ["MemoryStore", "StoreCore", "Data", "Domain", "TestSupport"],
            path: "Tests/MemoryStoreTests", swiftSettings: swiftSettings),
        // Keychain semantics, written once against the store handle and run against every adapter of the
        // ItemStorage port (StoreAdapter.all).
        .testTarget(
            name: "StoreConformanceTests",
            dependencies: [
                "MemoryStore", "SQLiteStore", "PostgreSQLStore", "StoreCore", "Data", "Domain", "TestSupport", "CSodium",
            ],
            path: "Tests/StoreConformanceTests", swiftSettings: swiftSettings),
        .testTarget(
            name: "NetworkTests",
            dependencies: [
                "URLSessionHTTP", "CurlHTTP", "DevelopmentServers", "Data", "Domain", "TestSupport", "OpenSSLCrypto",
            ],
            path: "Tests/NetworkTests", swiftSettings: swiftSettings),
        // Against a real server named by HARDTACK_TEST_POSTGRES (Tools/test starts one with Tools/postgres).
        .testTarget(
            name: "PostgreSQLTests", dependencies: ["PostgreSQLStore", "StoreCore", "Data", "Domain", "TestSupport"],
            path: "Tests/PostgreSQLTests",
            swiftSettings: swiftSettings),
        .testTarget(
            name: "CompositionTests", dependencies: ["Composition", "Domain", "Data", "TestSupport"],
            path: "Tests/CompositionTests", swiftSettings: swiftSettings),
        .testTarget(
            name: "OpenSSLCryptoTests", dependencies: ["OpenSSLCrypto", "Data"], path: "Tests/OpenSSLCryptoTests",
            swiftSettings: swiftSettings),
        .testTarget(
            name: "BrowserRedirectTests", dependencies: ["BrowserRedirect", "TestSupport"], path: "Tests/BrowserRedirectTests",
            swiftSettings: swiftSettings),
        .testTarget(
            name: "CommandLineKitTests", dependencies: ["CommandLineKit"], path: "Tests/CommandLineKitTests",
            swiftSettings: swiftSettings),
        .testTarget(
            name: "HardtackCLITests", dependencies: ["hardtack", "TestSupport"], path: "Tests/HardtackCLITests",
            swiftSettings: swiftSettings),
    ]
)

#if os(Linux)
    // The reliability and security bench (Tools/torture), built in release by that script. Linux only: it
    // reads /proc, works in /dev/shm and hands files to other users.
    package.targets.append(
        .executableTarget(
            name: "hardtack-torture",
            dependencies: [
                "SQLiteStore", "PostgreSQLStore", "StoreCore", "DevelopmentServers", "Data", "Domain", "CSodium",
                "BenchSupport", "RawSQLite",
            ],
            path: "Tools/TortureBench", swiftSettings: swiftSettings))
    // libFuzzer targets for the bench's long mode (built with --sanitize=fuzzer -DHARDTACK_FUZZ); a
    // normal build compiles an empty stub.
    package.targets.append(
        .executableTarget(
            name: "hardtack-fuzz", dependencies: ["SQLiteStore", "StoreCore", "DevelopmentServers", "Data", "Domain"], path: "Tools/Fuzz",
            swiftSettings: swiftSettings))
#endif
