// swift-tools-version:6.1
import PackageDescription

// The libraries' micro-benchmarks, on the package-benchmark harness (ordo-one/benchmark):
// `swift package --disable-sandbox benchmark` here. A package of its own so that the game's
// build, its tests and CI never compile the harness (docs/ARCHITECTURE.md, "Where the
// figures live"). The whole-system figures against same-run baselines stay in `snap-bench`.
let package = Package(
    name: "SnapBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        // Named, so the products below resolve whatever the checkout's folder is called.
        // No GUI trait: the libraries measured here never touch SDL.
        .package(name: "Snap", path: "..", traits: []),
        // The malloc counts come from the interposer (Swift 6.3); the trait list leaves out
        // the Linux ARC runtime interposer, a package this machine's mirror does not carry.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "Codec",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "SnapBytes", package: "Snap"),
                .product(name: "SnapEngine", package: "Snap"),
                .product(name: "SnapProtocol", package: "Snap"),
                .product(name: "SnapSimulation", package: "Snap"),
            ],
            path: "Benchmarks/Codec",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "Engine",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "SnapEngine", package: "Snap"),
                .product(name: "SnapSimulation", package: "Snap"),
            ],
            path: "Benchmarks/Engine",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "Journal",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "SnapEngine", package: "Snap"),
                .product(name: "SnapProtocol", package: "Snap"),
                .product(name: "SnapJournal", package: "Snap"),
                .product(name: "SnapSimulation", package: "Snap"),
            ],
            path: "Benchmarks/Journal",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
