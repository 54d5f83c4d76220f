import Foundation
import Testing
import SnapTestSupport

/// The architecture's borders (docs/ARCHITECTURE.md, "Layers"), read from the package graph
/// SwiftPM itself reports (`swift package describe`), followed transitively: a dependency
/// added anywhere below a module counts as the module's own.
@Suite("Module borders", .blocksThreads)
struct ModuleBorderTests {
    /// Snap!'s game modules: its rules, protocol, sessions, bots, network and table.
    static let snapGame: Set<String> = [
        "SnapEngine", "SnapProtocol", "SnapSession", "SnapBots", "SnapSimulation", "SnapNet", "SnapTable",
    ]

    /// (module, what it must not link, why).
    static let rules: [(String, Set<String>, String)] = [
        ("StoryEngine", snapGame, "Story is a second game on the platform"),
        ("StoryNotices", snapGame, "Story is a second game on the platform"),
        ("StoryProtocol", snapGame, "Story is a second game on the platform"),
        ("StoryLink", snapGame, "Story is a second game on the platform"),
        ("StoryStores", snapGame, "Story is a second game on the platform"),
        ("StoryService", snapGame, "Story is a second game on the platform"),
        // The window's own database is the player's match index (SnapHistory's SQLite), no other.
        ("SnapUI", ["StoryService", "StoryStores", "PostgresNIO"], "the window is a client of the story service"),
        ("SnapNet", ["SnapHistory", "SQLiteNIO", "PostgresNIO"], "the host knows no database: its history is handed to it"),
        ("SnapBytes", snapGame.union(["StoryEngine", "StoryProtocol"]), "the platform knows no game"),
        ("SnapPlatform", snapGame.union(["StoryEngine", "StoryProtocol"]), "the platform knows no game"),
        ("SnapSettings", snapGame, "the settings file's text needs no game"),
        // The relay pairs connections and copies bytes: it can link no game, so it can read none.
        ("SnapRelayProtocol", snapGame.union(["StoryEngine", "StoryProtocol", "SnapPlatform", "NIOCore"]), "the relay's lines are pure"),
        ("SnapRelay", snapGame.union(["StoryEngine", "StoryProtocol", "StoryService", "SnapJournal"]), "the relay knows no game"),
        ("SnapLAN", ["SnapSession", "SnapNet", "NIOCore", "NIOPosix"], "the LAN's records are pure: the fuzzer builds them whole"),
        // postgres-nio imports full Foundation, and with it ICU's data (docs/ARCHITECTURE.md,
        // "The PostgreSQL helper"): only snapcards-story-postgres and snap-bench link it.
        ("snap", ["PostgresNIO", "StoryStoresPostgres"], "the player's binary links no PostgreSQL driver"),
        ("SnapCommandLine", snapGame.union(["PostgresNIO", "SnapUI"]), "the PostgreSQL helper is the story service alone"),
    ]

    @Test("no module links what its layer forbids (swift package describe, transitively)")
    func noForbiddenEdge() throws {
        let graph = try PackageGraph.described()
        var broken: [String] = []
        for (module, forbidden, why) in Self.rules {
            let reached = try #require(graph.reachable(from: module), "\(module) is not a target of the package")
            for edge in reached.intersection(forbidden).sorted() {
                broken.append("\(module) → \(edge) (\(graph.path(from: module, to: edge).joined(separator: " → "))): \(why)")
            }
        }
        #expect(broken.isEmpty, "forbidden module edges:\n\(broken.joined(separator: "\n"))")
    }

    /// The check above passes trivially if the graph is read wrong; these edges are real.
    @Test("the graph as read has the edges the layers are built on")
    func graphIsRead() throws {
        let graph = try PackageGraph.described()
        #expect(graph.reachable(from: "StoryService")?.isSuperset(of: ["StoryStores", "SQLiteNIO", "StoryProtocol", "SnapBytes"]) == true)
        #expect(graph.reachable(from: "snapcards-story-postgres")?.isSuperset(of: ["SnapCommandLine", "StoryService", "StoryStoresPostgres", "PostgresNIO"]) == true)
        #expect(graph.reachable(from: "SnapUI")?.isSuperset(of: ["StoryLink", "StoryProtocol", "SnapNet", "SnapEngine", "SnapHistory"]) == true)
        #expect(graph.reachable(from: "snap")?.isSuperset(of: ["StoryService", "SnapCommandLine", "SnapUI", "SnapEngine"]) == true)
        #expect(graph.path(from: "SnapNet", to: "SnapEngine").first == "SnapNet")
        #expect(graph.reachable(from: "SnapRelay")?.isSuperset(of: ["SnapRelayProtocol", "SnapPlatform", "NIOSSL"]) == true)
    }
}

/// Targets and what each depends on directly: other targets and products of packages.
struct PackageGraph {
    var edges: [String: [String]] = [:]

    /// `swift package describe --type json` of this package. Its own scratch directory, so it
    /// never waits for the `.build` lock the running `swift test` holds; describing builds nothing.
    static func described() throws -> PackageGraph {
        let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let scratch = FileManager.default.temporaryDirectory.appending(path: "module-borders-\(getpid())")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = ["swift", "package", "--package-path", root.path, "--scratch-path", scratch.path,
                             "describe", "--type", "json"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure("swift package describe exited \(process.terminationStatus)") }
        return try PackageGraph(json: data)
    }

    init(json: Data) throws {
        struct Description: Decodable {
            struct Target: Decodable {
                var name: String
                var target_dependencies: [String]?
                var product_dependencies: [String]?
            }
            var targets: [Target]
        }
        for target in try JSONDecoder().decode(Description.self, from: json).targets {
            edges[target.name] = (target.target_dependencies ?? []) + (target.product_dependencies ?? [])
        }
    }

    /// Every target and product `module` links, directly or not; nil for an unknown module.
    func reachable(from module: String) -> Set<String>? {
        guard edges[module] != nil else { return nil }
        var seen: Set<String> = []
        var stack = edges[module] ?? []
        while let next = stack.popLast() {
            if seen.insert(next).inserted { stack += edges[next] ?? [] }
        }
        return seen
    }

    /// One shortest chain of dependencies from `module` to `target`, both included.
    func path(from module: String, to target: String) -> [String] {
        var previous: [String: String] = [:]
        var queue = [module]
        var index = 0
        while index < queue.count {
            let current = queue[index]
            index += 1
            if current == target { break }
            for next in edges[current] ?? [] where previous[next] == nil && next != module {
                previous[next] = current
                queue.append(next)
            }
        }
        guard module == target || previous[target] != nil else { return [] }
        var chain = [target]
        while let last = chain.last, last != module, let before = previous[last] { chain.append(before) }
        return chain.reversed()
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
