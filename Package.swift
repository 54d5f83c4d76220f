// swift-tools-version:6.1
import PackageDescription

// Layers (see docs/ARCHITECTURE.md). Only SnapUI (and SnapBench's UI benchmarks, for
// their bare-SDL baseline) may import CSDL2, and only when the `GUI` trait is on;
// `--disable-default-traits` builds and tests everything else on a machine without the
// SDL development packages.
let gui: TargetDependencyCondition? = .when(traits: ["GUI"])

let package = Package(
    name: "Snap",
    products: [
        // The installed command is `snapcards` (Ubuntu's /usr/bin/snap is snapd's; docs/PACKAGING.md).
        // The target keeps the name `snap`: its module is what the tests import.
        .executable(name: "snapcards", targets: ["snap"]),
        // The workshop: the whole-system benchmarks and attack drivers (`snap-bench`), apart
        // from the player's binary.
        .executable(name: "snap-bench", targets: ["snap-bench"]),
        // `snapcards story serve` and `story import` for a postgres:// database: snapcards runs
        // it in its own place (execv), so the player's binary links no PostgreSQL driver, nor the
        // full Foundation postgres-nio imports (docs/ARCHITECTURE.md, "The PostgreSQL helper").
        .executable(name: "snapcards-story-postgres", targets: ["snapcards-story-postgres"]),
        // For Benchmarks/, a package of its own that depends on this one by path: the
        // libraries its micro-benchmarks measure (docs/ARCHITECTURE.md, "Where the figures live").
        .library(name: "SnapBytes", targets: ["SnapBytes"]),
        .library(name: "SnapEngine", targets: ["SnapEngine"]),
        .library(name: "SnapProtocol", targets: ["SnapProtocol"]),
        .library(name: "SnapJournal", targets: ["SnapJournal"]),
        .library(name: "SnapSimulation", targets: ["SnapSimulation"]),
    ],
    traits: [
        .trait(name: "GUI", description: "The SDL2 windows; needs libsdl2-dev, -image, -mixer and -ttf."),
        .default(enabledTraits: ["GUI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The story service's default store: SQLite's amalgamation bundled, NIO-native async.
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.2"),
        // The story service's store for several processes sharing one database.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .target(name: "SnapEngine"),
        // Bytes from outside the process, knowing no game: frames, big-endian fields, player
        // names, join codes, seat tokens and secret text, token buckets. Pure Swift, so the
        // fuzzers build it whole; each protocol's error type says what went wrong (WireFailure).
        .target(name: "SnapBytes"),
        // Story, the turn-based second game: its rules import nothing but Swift.
        .target(name: "StoryEngine"),
        .target(name: "SnapBots", dependencies: ["SnapEngine"]),
        .target(name: "SnapProtocol", dependencies: ["SnapEngine", "SnapBytes"]),
        // Append-only checksummed record files; knows no game.
        .target(name: "SnapJournal"),
        // The platform's files without NIO: the environment, the state directory and the parts
        // of it two modules share, private (0700) directories. Below SnapPlatform, so what
        // needs only these (the match journals, Story's stores) links no NIO, TLS or X509.
        .target(name: "SnapFiles"),
        .systemLibrary(
            name: "CDBus",
            path: "CDBus",
            pkgConfig: "dbus-1",
            // Not SDL: `snapcards story notify` is in the headless build too.
            providers: [.apt(["libdbus-1-dev"])]
        ),
        // Desktop notifications over D-Bus (libdbus-1); knows no game.
        .target(name: "SnapDBus", dependencies: ["CDBus"]),
        // Which Story changes are worth a notice, and their words: pure, on StoryEngine only.
        .target(name: "StoryNotices", dependencies: ["StoryEngine"]),
        // Crypto: the fair deal's SHA-256 (swift-crypto's, as for TLS fingerprints and Story keys).
        .target(
            name: "SnapSession",
            dependencies: ["SnapEngine", "SnapProtocol", "SnapBytes", "SnapBots", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // Games between the host's own computer players in virtual time, on a real HostSession.
        .target(name: "SnapSimulation", dependencies: ["SnapEngine", "SnapBots", "SnapProtocol", "SnapSession"]),
        // The table as a window shows it: events in, piles and card flights out; no SDL, so
        // it builds and is tested headless. SnapUI draws it; `snapcards replay` feeds it a journal.
        .target(name: "SnapTable", dependencies: ["SnapEngine", "SnapProtocol", "SnapSession"]),
        // Every screen but the table as a value with one door, `handle(intent, now) -> [ScreenEffect]`:
        // the menu, single-player setup, replay controls, text fields. No SDL, so it builds
        // and is tested headless; SnapUI draws each model and maps input to its intents.
        // Story's window is one of these screens (the window sits on top of both games), so
        // SnapScreens uses Story's pure rules and messages (StoryEngine, StoryProtocol): a
        // Snap!-side module on Story's, never the other way (ModuleBorderTests), and not its
        // client (StoryLink, NIO): the window's connection stays in SnapUI.
        // SnapProtocol and SnapRelayProtocol are pure too: a hello's role, a host's closing
        // reasons, the invitation's scheme (the Join screen).
        .target(name: "SnapScreens", dependencies: ["SnapBytes", "SnapBots", "SnapTable", "SnapProtocol", "SnapRelayProtocol", "SnapStatistics", "StoryEngine", "StoryProtocol"]),
        // A player's figures as values, linking nothing: SnapHistory computes them, the
        // Statistics screen's model and `snapcards stats` take them.
        .target(name: "SnapStatistics"),
        // The network platform, knowing no game: TLS and trust, connecting, socket files and
        // directories, secret files, a blocking stream for command-line clients.
        .target(
            name: "SnapPlatform",
            dependencies: [
                "SnapBytes", "SnapFiles",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The match journals as files (where they live, writing, listing and reading one) and
        // `MatchHistory`, what a host keeps of them. A module of its own, not SnapNet's: the
        // match index (SnapHistory) reads them and links no network; not SnapJournal, which
        // knows no game; not SnapProtocol or SnapSession, which do no I/O. No NIO.
        .target(name: "SnapMatchFiles", dependencies: ["SnapProtocol", "SnapJournal", "SnapFiles"]),
        // Snap!'s games on the local network as DNS-SD records over multicast DNS: the pure
        // codec and the records (the fuzzer builds it whole); SnapNet's LAN.swift sends them.
        .target(name: "SnapLAN", dependencies: ["SnapProtocol", "SnapBytes"]),
        // Snap! on the network: the host server, seats, bots, discovery, the LAN's sockets.
        .target(
            name: "SnapNet",
            dependencies: [
                "SnapPlatform", "SnapFiles", "SnapRelayProtocol", "SnapRelayClient", "SnapLAN", "SnapSession", "SnapProtocol", "SnapBots", "SnapJournal",
                "SnapMatchFiles", "SnapBytes", "SnapEngine",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The index of the match journals (SQLite, beside them): what `snapcards history`, `snapcards
        // stats` and a host's won counts read. The journals stay the truth; it is rebuilt from them.
        .target(
            name: "SnapHistory",
            dependencies: [
                "SnapEngine", "SnapProtocol", "SnapSession", "SnapJournal", "SnapMatchFiles", "SnapStatistics",
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Story's wire format, its journal records and the sign-in checks as values: pure
        // (the fuzzer builds it whole), on StoryEngine and SnapBytes; never Snap!'s modules.
        .target(name: "StoryProtocol", dependencies: ["StoryEngine", "SnapBytes", "SnapJournal"]),
        // A client's side of the story service: the client, its key file, the socket path.
        // The window's Story screen links this, not the service.
        .target(
            name: "StoryLink",
            dependencies: [
                "StoryProtocol", "StoryEngine", "SnapBytes", "SnapPlatform", "SnapFiles",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The story service's stores: their contract, the SQLite store, the schema, and the
        // postgres:// URL (parsed without a driver). Only the service links them.
        .target(
            name: "StoryStores",
            dependencies: [
                "StoryProtocol", "StoryEngine", "SnapPlatform", "SnapFiles",
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The story store in PostgreSQL: only snapcards-story-postgres (and snap-bench) link it,
        // never snapcards (postgres-nio imports full Foundation, and with it ICU's data).
        .target(
            name: "StoryStoresPostgres",
            dependencies: [
                "StoryStores", "StoryProtocol", "StoryEngine",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The story service: its server and the database it opens.
        .target(
            name: "StoryService",
            dependencies: [
                "StoryProtocol", "StoryLink", "StoryStores", "StoryEngine", "SnapJournal", "SnapPlatform", "SnapFiles", "SnapBytes",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // What both executables that run `story serve` share: the command-line output lines,
        // logger, services and TLS options, and the `story serve` and `story import` commands.
        .target(
            name: "SnapCommandLine",
            dependencies: [
                "StoryService", "StoryStores", "StoryLink", "StoryProtocol", "StoryEngine", "SnapPlatform", "SnapFiles", "SnapBytes",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The relay's lines and its bookkeeping (docs/RELAY.md) as values: pure, knowing no game.
        .target(name: "SnapRelayProtocol", dependencies: ["SnapBytes"]),
        // The relay's client side on NIO: its line phase, its refusals, an invitation's endpoint
        // (a relayed `Endpoint` carries its `RelayPassage`). Knows no game; SnapPlatform, which
        // connects, knows no relay.
        .target(
            name: "SnapRelayClient",
            dependencies: ["SnapRelayProtocol", "SnapPlatform", .product(name: "NIOCore", package: "swift-nio")]
        ),
        // The relay on the network: pairs connections and copies bytes it cannot read.
        .target(
            name: "SnapRelay",
            dependencies: [
                "SnapRelayProtocol", "SnapPlatform", "SnapBytes",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                // The peer tags' HMAC (docs/RELAY.md §3).
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The settings file's text; SnapUI's Settings reads and writes the file.
        .target(name: "SnapSettings", dependencies: ["SnapBytes"]),
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
                "SnapEngine", "SnapProtocol", "SnapSession", "SnapNet", "SnapBots", "SnapTable", "SnapScreens", "SnapSettings",
                "StoryEngine", "StoryProtocol", "StoryLink", "SnapHistory", "SnapRelayProtocol", "SnapRelayClient",
                "SnapFiles", "SnapMatchFiles", "SnapBytes", "SnapLAN", "SnapPlatform", "SnapStatistics",
                .target(name: "CSDL2", condition: gui),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // The process's one event-loop group for a window's games (MultiThreadedEventLoopGroup.singleton).
                .product(name: "NIOPosix", package: "swift-nio"),
                // The games a window's process hosts are a service of its group (HostedGames).
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Every benchmark, attack driver and timing helper behind `snap-bench`: no library
        // and not `snap` imports it (SnapBenchTests checks), so a game links none of it. Its UI benchmarks
        // draw a bare-SDL baseline, so with the GUI trait it also imports SnapUI and CSDL2.
        .target(
            name: "SnapBench",
            dependencies: [
                "SnapEngine", "SnapProtocol", "SnapSession", "SnapSimulation", "SnapNet", "SnapJournal", "SnapHistory",
                "StoryEngine", "StoryProtocol", "StoryLink", "StoryStores", "StoryStoresPostgres", "StoryService",
                // `snap-bench relay` runs a relay in process for its latency figures.
                "SnapRelay", "SnapRelayProtocol", "SnapRelayClient", "SnapBytes", "SnapPlatform",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .target(name: "SnapTable", condition: gui),
                .target(name: "SnapUI", condition: gui),
                .target(name: "CSDL2", condition: gui),
            ]
        ),
        .executableTarget(
            name: "snap",
            dependencies: [
                "SnapEngine", "SnapBots", "SnapSimulation", "SnapBytes", "SnapProtocol", "SnapSession", "SnapNet", "SnapJournal", "SnapHistory", "SnapStatistics",
                .target(name: "SnapTable", condition: gui), .target(name: "SnapScreens", condition: gui),
                "StoryEngine", "StoryProtocol", "StoryLink", "StoryStores", "StoryService", "StoryNotices", "SnapDBus",
                "SnapRelay", "SnapRelayProtocol", "SnapRelayClient", "SnapCommandLine", "SnapFiles", "SnapMatchFiles", "SnapLAN", "SnapPlatform",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .target(name: "SnapUI", condition: gui),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                // The processes' lifecycles (signals, graceful shutdown): the group is the
                // executable's; the host runtime it runs is SnapNet's.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        // snapcards' `story serve` and `story import` with the PostgreSQL driver linked: snapcards
        // runs it, with the same arguments, for a postgres:// database.
        .executableTarget(
            name: "snapcards-story-postgres",
            dependencies: [
                "SnapCommandLine", "StoryStoresPostgres", "StoryStores",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // `snap-bench`: the commands, options and output lines `snap bench` had. It starts the
        // `snapcards` beside it for the story service it measures; the attack bench's host is its
        // own `host` command (HostServer, as `snapcards host --headless` runs it).
        .executableTarget(
            name: "snap-bench",
            dependencies: [
                "SnapBench", "SnapEngine", "SnapSimulation", "SnapSession", "SnapNet", "SnapHistory", "StoryLink", "StoryStores", "StoryStoresPostgres", "StoryService", "SnapPlatform",
                // `snap-bench statistics` opens the Statistics screen.
                .target(name: "SnapUI", condition: gui),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Tests write under one directory of the test process's, removed when it exits.
        // ScriptedHost speaks the protocol: SnapProtocol, never SDL or SnapUI.
        // waitOffPool: the semaphore bridge of synchronous tests, on SnapPlatform's executor.
        // NotificationsReceiver: a notification service on a test's own bus, on SnapDBus's code.
        // journaledMatch: a match's journal records, played by a HostSession in virtual time.
        .target(
            name: "SnapTestSupport",
            dependencies: ["SnapProtocol", "SnapSession", "SnapPlatform", "SnapBytes", "SnapDBus", "CDBus", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")],
            path: "Tests/SnapTestSupport"
        ),
        .testTarget(name: "SnapEngineTests", dependencies: ["SnapEngine"]),
        .testTarget(name: "StoryEngineTests", dependencies: ["StoryEngine"]),
        .testTarget(name: "StoryNoticesTests", dependencies: ["StoryNotices", "StoryEngine", "StoryLink", "StoryProtocol", "SnapTestSupport"]),
        .testTarget(name: "SnapDBusTests", dependencies: ["SnapDBus", "SnapTestSupport"]),
        .testTarget(
            name: "StoryServiceTests",
            dependencies: [
                "StoryService", "StoryStores", "StoryStoresPostgres", "StoryLink", "StoryProtocol", "StoryEngine", "SnapBytes", "SnapJournal", "SnapPlatform", "SnapTestSupport",
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "SQLiteNIO", package: "sqlite-nio"),
            ]
        ),
        .testTarget(name: "SnapBotsTests", dependencies: ["SnapBots", "SnapEngine"]),
        .testTarget(name: "SnapSimulationTests", dependencies: ["SnapSimulation", "SnapEngine", "SnapBots"]),
        .testTarget(name: "SnapProtocolTests", dependencies: ["SnapProtocol", "SnapBytes", "SnapEngine", "SnapTestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(
            name: "SnapSessionTests",
            dependencies: ["SnapSession", "SnapProtocol", "SnapBytes", "SnapEngine", "SnapBots", "SnapTestSupport", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .testTarget(
            name: "SnapNetTests",
            dependencies: [
                "SnapNet", "SnapPlatform", "SnapLAN", "SnapHistory", "SnapMatchFiles", "SnapTestSupport", "SnapSession", "SnapProtocol", "SnapBytes",
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "NIOTLS", package: "swift-nio"),
                "SnapEngine", "SnapJournal",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // The host's parts on embedded channels and loops (OutboundQueueTests, LocalLinksTests).
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "SnapHistoryTests",
            dependencies: ["SnapHistory", "SnapStatistics", "SnapMatchFiles", "SnapNet", "SnapJournal", "SnapProtocol", "SnapSession", "SnapEngine", "SnapSimulation", "SnapTestSupport"]
        ),
        .testTarget(name: "SnapTableTests", dependencies: ["SnapTable", "SnapSession", "SnapProtocol", "SnapEngine", "SnapTestSupport"]),
        .testTarget(name: "SnapSettingsTests", dependencies: ["SnapSettings"]),
        // The screens' models, headless: no window, no SDL development packages.
        .testTarget(name: "SnapScreensTests", dependencies: ["SnapScreens", "SnapStatistics", "SnapTable", "SnapBots", "SnapBytes", "SnapProtocol", "SnapEngine", "SnapTestSupport", "StoryEngine", "StoryProtocol"]),
        .testTarget(
            name: "SnapRelayTests",
            dependencies: [
                "SnapRelay", "SnapRelayProtocol", "SnapRelayClient", "SnapPlatform", "SnapBytes", "SnapTestSupport",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        // Reads the package graph (`swift package describe`) and every target's imports, and fails on
        // an edge its table of allowed edges lacks (and on one the layers forbid, transitively).
        .testTarget(name: "ModuleBorderTests", dependencies: ["SnapTestSupport"]),
        .testTarget(name: "SnapCLITests", dependencies: ["snap", "snap-bench", "snapcards-story-postgres", "SnapTestSupport", "SnapJournal", "SnapMatchFiles", "SnapNet", "SnapSession", "SnapEngine", "SnapProtocol", "StoryProtocol", "StoryLink", "StoryStores", "StoryService", "SnapDBus", "StoryEngine", "SnapRelay", "SnapRelayProtocol", "SnapPlatform", "SnapBytes", "SnapLAN",
                                                            .product(name: "NIOPosix", package: "swift-nio"), .product(name: "Logging", package: "swift-log"),
                                                            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]),
        .testTarget(name: "SnapBenchTests", dependencies: ["SnapBench", "SnapEngine", "SnapSimulation", "SnapTestSupport"]),
        .testTarget(
            name: "SnapUITests",
            dependencies: [
                "SnapTable", "SnapJournal", "SnapMatchFiles", "SnapNet", "SnapProtocol", "SnapSession", "SnapTestSupport", "StoryEngine", "SnapHistory", "StoryLink",
                "SnapRelay", "SnapRelayProtocol", "SnapPlatform", "SnapBytes", "SnapEngine",
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .target(name: "SnapUI", condition: gui), .target(name: "CSDL2", condition: gui),
                .target(name: "snap", condition: gui), .target(name: "snap-bench", condition: gui),
            ]
        ),
    ]
)
