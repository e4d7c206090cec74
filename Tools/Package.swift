// swift-tools-version:6.0
import PackageDescription

/// The project's own measuring and breaking tools, apart from the product: the benchmark
/// (`Tools/bench`), the torture bench (`Tools/torture`) and the fuzzers it builds. They depend on
/// Hardtack by path, through its library products, as an adopter's package would.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let hardtack: [Target.Dependency] = [
    .product(name: "HardtackStore", package: "Hardtack"), .product(name: "HardtackApp", package: "Hardtack"),
]

let package = Package(
    name: "HardtackTools",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "hardtack-bench", targets: ["hardtack-bench"])
    ],
    dependencies: [.package(name: "Hardtack", path: "..")],
    targets: [
        // The C libraries the benches call directly, to measure Hardtack against them (Debian:
        // libsqlite3-dev, libsodium-dev, libpq-dev, which Tools/install-dependencies installs).
        .systemLibrary(name: "DirectSQLite", path: "CLibraries/DirectSQLite", pkgConfig: "sqlite3"),
        .systemLibrary(name: "DirectSodium", path: "CLibraries/DirectSodium", pkgConfig: "libsodium"),
        .systemLibrary(name: "DirectLibPQ", path: "CLibraries/DirectLibPQ", pkgConfig: "libpq"),

        // What the benchmark and the torture bench share: a seeded generator, so a printed seed replays
        // a run, and the wait that lets a synchronous worker call the app's async ports.
        .target(name: "BenchSupport", path: "BenchSupport", swiftSettings: swiftSettings),

        // The benchmark (Tools/bench): the store's workload through Hardtack and straight against the C
        // libraries it wraps, so Hardtack's own overhead shows.
        .executableTarget(
            name: "hardtack-bench",
            dependencies: hardtack + ["BenchSupport", "DirectSQLite", "DirectSodium", "DirectLibPQ"],
            path: "Benchmark", swiftSettings: swiftSettings),
    ]
)

#if os(Linux)
    // The reliability and security bench (Tools/torture), built in release by that script. Linux only: it
    // reads /proc, works in /dev/shm and hands files to other users.
    package.targets.append(
        .executableTarget(
            name: "hardtack-torture",
            dependencies: hardtack + [
                .product(name: "HardtackDevelopment", package: "Hardtack"),
                .product(name: "HardtackTesting", package: "Hardtack"), "BenchSupport", "DirectSodium",
            ],
            path: "TortureBench", swiftSettings: swiftSettings))
    // libFuzzer targets for the bench's long mode (built with --sanitize=fuzzer -DHARDTACK_FUZZ); a
    // normal build compiles an empty stub.
    package.targets.append(
        .executableTarget(
            name: "hardtack-fuzz",
            dependencies: hardtack + [.product(name: "HardtackDevelopment", package: "Hardtack")],
            path: "Fuzz", swiftSettings: swiftSettings))
    package.products += [
        .executable(name: "hardtack-torture", targets: ["hardtack-torture"]),
        .executable(name: "hardtack-fuzz", targets: ["hardtack-fuzz"]),
    ]
#endif
