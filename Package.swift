// swift-tools-version:6.1
import PackageDescription

// Layers (see docs/ARCHITECTURE.md). Only SnapUI may import CSDL2, and only when the
// `GUI` trait is on; `--disable-default-traits` builds and tests everything else
// on a machine without the SDL development packages.
let gui: TargetDependencyCondition? = .when(traits: ["GUI"])

let package = Package(
    name: "Snap",
    products: [
        .executable(name: "snap", targets: ["snap"])
    ],
    traits: [
        .trait(name: "GUI", description: "The SDL2 windows; needs libsdl2-dev, -image, -mixer and -ttf."),
        .default(enabledTraits: ["GUI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
    ],
    targets: [
        .target(name: "SnapEngine"),
        // Story, the turn-based second game: its rules import nothing but Swift.
        .target(name: "StoryEngine"),
        .target(name: "SnapBots", dependencies: ["SnapEngine"]),
                .target(name: "SnapProtocol", dependencies: ["SnapEngine"]),
        // Append-only checksummed record files; knows no game.
        .target(name: "SnapJournal"),
        .target(name: "SnapSession", dependencies: ["SnapEngine", "SnapProtocol", "SnapBots"]),
        // Games between the host's own computer players in virtual time, on a real HostSession.
        .target(name: "SnapSimulation", dependencies: ["SnapEngine", "SnapBots", "SnapProtocol", "SnapSession"]),
        .target(
            name: "SnapNet",
            dependencies: [
                "SnapSession", "SnapProtocol", "SnapBots", "SnapJournal",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The story service: its messages, journal records, server and client.
        .target(
            name: "StoryService",
            dependencies: [
                "StoryEngine", "SnapProtocol", "SnapJournal", "SnapNet",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .systemLibrary(
            name: "CSDL2",
            path: "CSDL2",
            // No pkgConfig: SDL's headers sit in /usr/include/SDL2 and find each other by
            // relative includes, and sdl2.pc's -D_REENTRANT is a flag SwiftPM refuses.
            providers: [.apt(["libsdl2-dev", "libsdl2-image-dev", "libsdl2-mixer-dev", "libsdl2-ttf-dev"])]
        ),
        .target(
            name: "SnapUI",
            dependencies: [
                "SnapEngine", "SnapProtocol", "SnapSession", "SnapNet", "SnapBots", "StoryEngine", "StoryService",
                .target(name: "CSDL2", condition: gui),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "snap",
            dependencies: [
                "SnapEngine", "SnapBots", "SnapSimulation", "SnapProtocol", "SnapSession", "SnapNet", "SnapJournal",
                "StoryEngine", "StoryService",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .target(name: "SnapUI", condition: gui),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "SnapEngineTests", dependencies: ["SnapEngine"]),
        .testTarget(name: "StoryEngineTests", dependencies: ["StoryEngine"]),
        .testTarget(
            name: "StoryServiceTests",
            dependencies: [
                "StoryService", "StoryEngine", "SnapProtocol",
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "SnapBotsTests", dependencies: ["SnapBots", "SnapEngine"]),
        .testTarget(name: "SnapSimulationTests", dependencies: ["SnapSimulation", "SnapEngine"]),
        .testTarget(name: "SnapProtocolTests", dependencies: ["SnapProtocol", "SnapEngine"], resources: [.copy("Fixtures")]),
        .testTarget(name: "SnapSessionTests", dependencies: ["SnapSession", "SnapProtocol", "SnapEngine", "SnapBots"]),
        .testTarget(name: "SnapNetTests", dependencies: ["SnapNet"]),
        .testTarget(name: "SnapCLITests", dependencies: ["snap"]),
        .testTarget(
            name: "SnapUITests",
            dependencies: [
                .target(name: "SnapUI", condition: gui), .target(name: "CSDL2", condition: gui),
                .target(name: "snap", condition: gui),
            ]
        ),
    ]
)
