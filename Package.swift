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
        // What a backend depends on. The store alone, with its adapters (SQLite, PostgreSQL, memory):
        .library(
            name: "HardtackStore",
            targets: ["Domain", "Data", "StoreCore", "SQLiteStore", "PostgreSQLStore", "MemoryStore"]),
        // The app core: the use cases, wired over the store and the HTTP adapters by the composition root.
        .library(name: "HardtackApp", targets: ["Domain", "Data", "Composition", "Gateway", "MicroHTTPD"]),
        // For development and tests only: the embedded OAuth 2.0 / OpenID Connect server (served over
        // HTTP by `hardtack serve`, on libmicrohttpd); and a raw SQLite connection to a store file, to edit
        // it behind the store's back. Neither product above links either.
        .library(name: "HardtackDevelopment", targets: ["DevelopmentServers"]),
        .library(name: "HardtackTesting", targets: ["RawSQLite"]),
        .executable(name: "hardtack", targets: ["hardtack"]),
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
        // GNU libmicrohttpd, the HTTP server under the gateway and the development servers.
        .systemLibrary(
            name: "CMicroHTTPD", path: "Modules/CMicroHTTPD", pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]),
        // OpenSSL's libcrypto, for the RSA and P-256 signatures of ID tokens (libsodium has neither).
        .systemLibrary(
            name: "COpenSSL", path: "Modules/COpenSSL", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),

        // The layers. Each depends only on the one beneath it, so a wrong import does not compile.
        .target(name: "Domain", path: "Modules/Domain", swiftSettings: swiftSettings),
        .target(name: "Data", dependencies: ["Domain", "Locking"], path: "Modules/Data", swiftSettings: swiftSettings),

        // The secure item store: a backend-neutral core (crypto envelope, key hierarchy, blind indexes,
        // attribute codec, rows digest and the Keychain semantics) and one adapter target per backend.
        .target(
            name: "StoreCore", dependencies: ["Data", "Domain", "CSodium"], path: "Modules/StoreCore",
            swiftSettings: swiftSettings),
        // The page checksum of the SQLite adapter's VFS: CRC-32C with the CPU's instruction, in C of our own.
        // No unsafe flags anywhere: a package that has them cannot be a versioned dependency (Tools/profile
        // passes -Xcc -gdwarf-4 itself, for valgrind).
        .target(name: "CCRC32C", path: "Modules/CCRC32C"),
        // The executable's process settings that only C can make (prctl is variadic): no core dumps.
        .target(name: "CProcessHardening", path: "Modules/CProcessHardening"),
        .target(
            name: "SQLiteStore", dependencies: ["StoreCore", "Data", "Domain", "CSQLite", "CSodium", "CCRC32C"],
            path: "Modules/SQLiteStore", swiftSettings: swiftSettings),
        // The store in memory, for one process (tests of the layers above; the port's contract in short).
        .target(
            name: "MemoryStore", dependencies: ["StoreCore", "Data", "Domain"], path: "Modules/MemoryStore",
            swiftSettings: swiftSettings),

        // The other adapters, by technology: HTTP over URLSession, the legacy preferences file and the
        // process identity; the development-only embedded auth server in a target of its own, apart from
        // production code.
        .target(name: "Locking", path: "Modules/Locking", swiftSettings: swiftSettings),
        // One thread's event loop over epoll, shared by libmicrohttpd and libcurl: a request's handler, its
        // upstream call and its answer run on the thread that read the request.
        .target(name: "CEpoll", path: "Modules/CEpoll"),
        .target(name: "Epoll", dependencies: ["CEpoll", "Locking"], path: "Modules/Epoll", swiftSettings: swiftSettings),
        .target(
            name: "URLSessionHTTP", dependencies: ["Data", "Locking"], path: "Modules/URLSessionHTTP",
            swiftSettings: swiftSettings),
        // An HTTP/1.1 server over libmicrohttpd: its event loop and limits, a request handed to Swift while its
        // connection is suspended.
        .target(
            name: "MicroHTTPD", dependencies: ["Data", "Locking", "Epoll", "CMicroHTTPD"], path: "Modules/MicroHTTPD",
            swiftSettings: swiftSettings),
        // HTTP over libcurl's easy interface: on Linux, where URLSession spins while it waits.
        .target(
            name: "CurlHTTP", dependencies: ["Data", "Locking", "Epoll", "CCurl"], path: "Modules/CurlHTTP",
            swiftSettings: swiftSettings),
        // JWS signatures (RS256, ES256), random bytes and SHA-256 over libcrypto: the adapter behind Data's
        // JWSSignatureVerifier port, and the embedded server's signing keys.
        .target(
            name: "OpenSSLCrypto", dependencies: ["Data", "Domain", "COpenSSL"], path: "Modules/OpenSSLCrypto",
            swiftSettings: swiftSettings),
        // The browser side of a native app's sign-in (RFC 8252): the one-shot loopback redirect listener
        // (on libmicrohttpd) and the BROWSER / xdg-open launcher. Production code, apart from the
        // development servers.
        .target(
            name: "BrowserRedirect", dependencies: ["Data", "Locking", "MicroHTTPD"], path: "Modules/BrowserRedirect",
            swiftSettings: swiftSettings),
        // The legacy preferences file (the seeds' plaintext tokens), read once to migrate it, then wiped.
        .target(
            name: "LegacyPreferences", dependencies: ["Data", "Domain"], path: "Modules/LegacyPreferences",
            swiftSettings: swiftSettings),
        // The process identity behind refresh claims: who claims, and whether a claimant of this machine ended.
        .target(name: "ProcessIdentity", path: "Modules/ProcessIdentity", swiftSettings: swiftSettings),
        .target(
            name: "DevelopmentServers", dependencies: ["Data", "Domain", "Locking", "CSodium", "OpenSSLCrypto"],
            path: "Modules/DevelopmentServers", swiftSettings: swiftSettings),
        // The backend-for-frontend: a browser's sign-in, its session behind a cookie, its API calls forwarded
        // with the session's token, over the use cases (libsodium seals what cookies and sessions carry).
        .target(
            name: "Gateway", dependencies: ["Domain", "Data", "Locking", "CSodium"], path: "Modules/Gateway",
            swiftSettings: swiftSettings),
        // The production composition root: builds the store and the app, and nothing else.
        .target(
            name: "Composition",
            dependencies: ["Domain", "Data", "LegacyPreferences", "ProcessIdentity", "StoreCore", "SQLiteStore", "PostgreSQLStore",
                "URLSessionHTTP", "CurlHTTP", "BrowserRedirect", "OpenSSLCrypto", "Gateway", "MicroHTTPD", "Locking"],
            path: "Modules/Composition", swiftSettings: swiftSettings),
        // The development wiring: the demo's world and `hardtack serve`, over the development servers. Only
        // the executable links it.
        .target(
            name: "DevelopmentComposition",
            dependencies: [
                "Composition", "Gateway", "MicroHTTPD", "DevelopmentServers", "Domain", "Data", "StoreCore",
                "BrowserRedirect", "OpenSSLCrypto",
            ],
            path: "Modules/DevelopmentComposition", resources: [.copy("GatewayApp")], swiftSettings: swiftSettings),
        // The command-line framework (commands, typed options, help, exit statuses); knows nothing of the app.
        .target(name: "CommandLineKit", path: "Modules/CommandLineKit", swiftSettings: swiftSettings),
        // The store on PostgreSQL (libpq). Its connection layer has its own errors, translated by the adapter.
        .target(
            name: "PostgreSQLStore", dependencies: ["StoreCore", "Data", "Domain", "CLibPQ", "COpenSSL"],
            path: "Modules/PostgreSQLStore",
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "hardtack",
            dependencies: [
                "Composition", "DevelopmentComposition", "Gateway", "StoreCore", "Data", "Domain", "CommandLineKit",
                "CProcessHardening", "Epoll",
            ],
            path: "Modules/hardtack",
            swiftSettings: swiftSettings),

        // Tests: one target per module, fakes in a shared support target.
        .target(
            name: "TestSupport", dependencies: ["Domain", "Data"], path: "Tests/TestSupport",
            swiftSettings: swiftSettings),
        .testTarget(
            name: "DomainTests", dependencies: ["Domain", "TestSupport"], path: "Tests/DomainTests",
            swiftSettings: swiftSettings),
        .testTarget(
            name: "DataTests",
            dependencies: ["Data", "Domain", "Locking", "SQLiteStore", "StoreCore", "TestSupport", "OpenSSLCrypto"],
            path: "Tests/DataTests", swiftSettings: swiftSettings),
        // A raw SQLite connection to a store file, shared by the tamper tests and the torture bench:
        // the attacker (or the disk) that edits rows behind the store's back.
        .target(
            name: "RawSQLite", dependencies: ["CSQLite"], path: "Tests/RawSQLite", swiftSettings: swiftSettings),
        // The store's tests also link libsodium: tamper tests recompute header and page checksums, as an
        // attacker with write access would.
        .testTarget(
            name: "SQLiteStoreTests",
            dependencies: [
                "SQLiteStore", "StoreCore", "Data", "Domain", "TestSupport", "RawSQLite", "CSodium", "CCRC32C",
            ],
            path: "Tests/SQLiteStoreTests", exclude: ["Fixtures"], swiftSettings: swiftSettings),
        .testTarget(
            name: "LegacyPreferencesTests",
            dependencies: ["LegacyPreferences", "SQLiteStore", "Data", "Domain", "TestSupport"],
            path: "Tests/LegacyPreferencesTests", swiftSettings: swiftSettings),
        .testTarget(
            name: "ProcessIdentityTests", dependencies: ["ProcessIdentity"], path: "Tests/ProcessIdentityTests",
            swiftSettings: swiftSettings),
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
            name: "GatewayTests", dependencies: ["Gateway", "SQLiteStore", "Data", "Domain", "TestSupport"],
            path: "Tests/GatewayTests", swiftSettings: swiftSettings),
        .testTarget(name: "EpollTests", dependencies: ["Epoll"], path: "Tests/EpollTests", swiftSettings: swiftSettings),
        .testTarget(name: "LockingTests", dependencies: ["Locking"], path: "Tests/LockingTests", swiftSettings: swiftSettings),
        .testTarget(
            name: "MicroHTTPDTests", dependencies: ["MicroHTTPD", "CurlHTTP", "Data", "TestSupport"],
            path: "Tests/MicroHTTPDTests", swiftSettings: swiftSettings),
        .testTarget(
            name: "NetworkTests",
            dependencies: [
                "URLSessionHTTP", "CurlHTTP", "MicroHTTPD", "DevelopmentServers", "Data", "Domain", "Locking",
                "TestSupport", "OpenSSLCrypto",
            ],
            path: "Tests/NetworkTests", swiftSettings: swiftSettings),
        // Against a real server named by HARDTACK_TEST_POSTGRES (Tools/test starts one with Tools/postgres).
        .testTarget(
            name: "PostgreSQLTests", dependencies: ["PostgreSQLStore", "StoreCore", "Data", "Domain", "TestSupport"],
            path: "Tests/PostgreSQLTests",
            swiftSettings: swiftSettings),
        .testTarget(
            name: "CompositionTests",
            dependencies: [
                "Composition", "DevelopmentComposition", "Domain", "Data", "PostgreSQLStore", "SQLiteStore", "StoreCore",
                "TestSupport",
            ],
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
        // Where code may be: sessions written only by the use cases, no command-line words in the inner
        // layers, the executable building nothing the root should (read from the sources).
        .testTarget(
            name: "ArchitectureTests", dependencies: ["TestSupport"], path: "Tests/ArchitectureTests",
            swiftSettings: swiftSettings),
        .testTarget(
            name: "HardtackCLITests",
            dependencies: ["hardtack", "TestSupport", "CurlHTTP", "Data", "RawSQLite", "SQLiteStore"],
            path: "Tests/HardtackCLITests",
            swiftSettings: swiftSettings),
    ]
)
