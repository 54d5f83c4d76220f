import Foundation
import Testing
import SnapTestSupport

/// The architecture's borders (docs/ARCHITECTURE.md, "Layers") as allowed edges: each target
/// of the package lists what it may depend on directly, and any other edge fails, whether
/// declared in Package.swift (read from `swift package dump-package`) or made by an `import` in
/// the target's sources. A new edge fails until someone adds it to `allowed` on purpose; so
/// does a target with no row. The doc's table is drawn from the same rows (`documentedTable`).
@Suite("Module borders", .blocksThreads)
struct ModuleBorderTests {
    /// One target and what it may depend on directly: targets of this package and products of
    /// others. A name in `may` that is not a row's module is a product.
    struct Row: Sendable {
        var module: String
        var may: [String]
        var what: String
        init(_ module: String, _ may: [String], _ what: String) { (self.module, self.may, self.what) = (module, may, what) }
    }

    /// Every target of the package but the test targets, by layer, top first. Test targets may
    /// depend on any target and product (nothing depends on them), but must declare what they
    /// import. Keep `may` exact: a name the target no longer uses fails too, so the doc's
    /// table says what is.
    static let allowed: [(layer: String, rows: [Row])] = [
        ("The programs and the workshop", [
            // postgres-nio imports full Foundation, and with it ICU's data (docs/ARCHITECTURE.md,
            // "The PostgreSQL helper"): snapcards runs snapcards-story-postgres for it.
            Row("snap", [
                "SnapUI", "SnapScreens", "SnapTable", "SnapSimulation", "SnapHistory", "SnapStatistics", "SnapNet", "SnapMatchFiles",
                "SnapLAN", "SnapSession", "SnapProtocol", "SnapBots", "SnapEngine",
                "SnapCommandLine", "StoryService", "StoryStores", "StoryLink", "StoryNotices", "StoryProtocol", "StoryEngine",
                "SnapRelay", "SnapRelayClient", "SnapRelayProtocol", "SnapPlatform", "SnapFiles", "SnapJournal", "SnapBytes", "SnapDBus",
                "ArgumentParser", "Logging", "NIOCore", "NIOPosix", "ServiceLifecycle", "UnixSignals",
            ], "`snapcards`, the player's binary: never PostgreSQL, never the workshop"),
            Row("snapcards-story-postgres", ["SnapCommandLine", "StoryStoresPostgres", "StoryStores", "ArgumentParser"],
                "`story serve` and `story import` with the PostgreSQL driver, run by snapcards"),
            Row("snap-bench", [
                "SnapBench", "SnapUI", "SnapSimulation", "SnapHistory", "SnapNet", "SnapSession", "SnapEngine",
                "StoryService", "StoryStoresPostgres", "StoryStores", "StoryLink", "SnapPlatform",
                "ArgumentParser", "Logging", "NIOPosix",
            ], "the workshop's command"),
            Row("SnapBench", [
                "SnapUI", "SnapTable", "SnapSimulation", "SnapHistory", "SnapNet", "SnapSession", "SnapProtocol", "SnapEngine",
                "StoryService", "StoryStoresPostgres", "StoryStores", "StoryLink", "StoryProtocol", "StoryEngine",
                "SnapRelay", "SnapRelayClient", "SnapRelayProtocol", "SnapPlatform", "SnapJournal", "SnapBytes", "CSDL2",
                "Logging", "NIOConcurrencyHelpers", "NIOCore", "NIOPosix", "NIOSSL",
            ], "every benchmark and attack driver: no library and not snap imports it"),
            Row("SnapCommandLine", [
                "StoryService", "StoryStores", "StoryLink", "StoryProtocol", "StoryEngine", "SnapPlatform", "SnapFiles", "SnapBytes",
                "ArgumentParser", "Logging", "NIOCore", "NIOPosix", "ServiceLifecycle",
            ], "what both programs that serve Story share: no Snap! game, no PostgreSQL"),
            Row("SnapTestSupport", ["SnapSession", "SnapProtocol", "SnapPlatform", "SnapBytes", "SnapDBus", "CDBus", "NIOConcurrencyHelpers"],
                "the tests' helpers: never SDL or SnapUI"),
        ]),
        ("Snap!", [
            Row("SnapUI", [
                "SnapScreens", "SnapTable", "SnapHistory", "SnapStatistics", "SnapNet", "SnapMatchFiles", "SnapLAN", "SnapSession", "SnapProtocol",
                "SnapBots", "SnapEngine", "SnapSettings", "StoryLink", "StoryProtocol", "StoryEngine",
                "SnapRelayClient", "SnapRelayProtocol", "SnapPlatform", "SnapFiles", "SnapBytes", "CSDL2",
                "Logging", "NIOConcurrencyHelpers", "NIOPosix", "ServiceLifecycle",
            ], "the SDL windows; the Story window is a client of the service, its database the match index"),
            // The screens' models (issue 44): Story's pure rules and messages for the Story screen's
            // model, the relay's invitations for the Join screen's, a player's figures for the
            // Statistics screen's; never SDL, SnapUI, the network or the index's database.
            Row("SnapScreens", ["SnapTable", "SnapStatistics", "SnapProtocol", "SnapBots", "SnapBytes", "SnapRelayProtocol", "StoryProtocol", "StoryEngine"],
                "the screens as values, no SDL"),
            Row("SnapHistory", [
                "SnapMatchFiles", "SnapStatistics", "SnapSession", "SnapProtocol", "SnapEngine", "SnapJournal",
                "SQLiteNIO", "Logging", "NIOConcurrencyHelpers", "NIOCore", "NIOPosix",
            ], "the match index (SQLite): no network"),
            Row("SnapTable", ["SnapSession", "SnapProtocol", "SnapEngine"], "the table as a window shows it, no SDL"),
            Row("SnapStatistics", [], "a player's figures as values: SnapHistory computes them, the screens draw them"),
            Row("SnapSimulation", ["SnapSession", "SnapProtocol", "SnapBots", "SnapEngine"], "bots' games in virtual time"),
            Row("SnapNet", [
                "SnapMatchFiles", "SnapLAN", "SnapSession", "SnapProtocol", "SnapBots", "SnapEngine",
                "SnapRelayClient", "SnapRelayProtocol", "SnapPlatform", "SnapFiles", "SnapJournal", "SnapBytes",
                "Crypto", "Logging", "NIOConcurrencyHelpers", "NIOCore", "NIOPosix", "NIOSSL", "NIOTLS", "ServiceLifecycle", "X509",
            ], "the host, seats, discovery, the LAN's sockets: no database (its history is handed to it)"),
            Row("SnapMatchFiles", ["SnapProtocol", "SnapJournal", "SnapFiles"], "the match journals as files, no NIO"),
            Row("SnapLAN", ["SnapProtocol", "SnapBytes"], "DNS-SD records, pure: the fuzzer builds them whole"),
            Row("SnapSession", ["SnapProtocol", "SnapBots", "SnapEngine", "SnapBytes", "Crypto"], "host and client as values"),
            Row("SnapProtocol", ["SnapEngine", "SnapBytes"], "the wire format, pure"),
            Row("SnapBots", ["SnapEngine"], "computer players as pure policies"),
            Row("SnapEngine", [], "the rules: nothing but Swift"),
        ]),
        ("Story", [
            Row("StoryService", [
                "StoryStores", "StoryLink", "StoryProtocol", "StoryEngine", "SnapPlatform", "SnapFiles", "SnapJournal", "SnapBytes",
                "Logging", "NIOCore", "NIOPosix", "NIOSSL",
            ], "the service: its server and the database it opens"),
            Row("StoryStoresPostgres", ["StoryStores", "StoryProtocol", "StoryEngine", "PostgresNIO", "Logging", "NIOCore", "NIOSSL"],
                "the PostgreSQL store: never in snapcards"),
            // VaporCSQLite is sqlite-nio's C module, which has no product of its own: the
            // SQLite store drives SQLite's C API under SQLiteNIO (`bundled`).
            Row("StoryStores", [
                "StoryProtocol", "StoryEngine", "SnapPlatform", "SnapFiles",
                "SQLiteNIO", "Logging", "NIOConcurrencyHelpers", "NIOCore", "NIOPosix", "NIOSSL",
            ], "the stores' contract and the SQLite store: no client"),
            Row("StoryLink", ["StoryProtocol", "StoryEngine", "SnapPlatform", "SnapFiles", "SnapBytes", "Crypto"],
                "a client's side: the client, its key, the socket path"),
            Row("StoryProtocol", ["StoryEngine", "SnapJournal", "SnapBytes"], "messages, records and sign-in checks, pure"),
            Row("StoryNotices", ["StoryEngine"], "which changes are worth a notice, pure"),
            Row("StoryEngine", [], "the rules: nothing but Swift"),
        ]),
        ("The platform, knowing no game", [
            Row("SnapRelay", ["SnapRelayProtocol", "SnapPlatform", "SnapBytes", "Crypto", "Logging", "NIOCore", "NIOPosix", "NIOSSL"],
                "the relay's server: pairs connections, copies bytes it cannot read"),
            Row("SnapRelayClient", ["SnapRelayProtocol", "SnapPlatform", "NIOCore"],
                "the relay's client side: its line phase, an invitation's endpoint"),
            Row("SnapPlatform", [
                "SnapFiles", "SnapBytes",
                "Crypto", "NIOConcurrencyHelpers", "NIOCore", "NIOPosix", "NIOSSL", "NIOTLS", "X509",
            ], "TLS and trust, connecting, socket files, secret files: no relay"),
            Row("SnapRelayProtocol", ["SnapBytes"], "the relay's lines and RelayMachine, pure"),
            Row("SnapSettings", ["SnapBytes"], "the settings file's text"),
            Row("SnapFiles", [], "the environment, the state directories, private directories: libc only"),
            Row("SnapJournal", [], "append-only checksummed record files"),
            Row("SnapBytes", [], "frames, fields, names, codes, tokens, secret text: pure"),
            Row("SnapDBus", ["CDBus"], "desktop notifications"),
            Row("CDBus", [], "libdbus-1 (system library)"),
            Row("CSDL2", [], "SDL2 and its image, mixer and ttf libraries (system library; GUI trait only)"),
        ]),
    ]

    /// Modules a product brings that have no product of their own: importing one is an edge
    /// to the product.
    static let bundled: [String: String] = ["VaporCSQLite": "SQLiteNIO"]

    /// What the toolchain brings: never an edge of the package graph.
    static let toolchain: Set<String> = [
        "Swift", "_Concurrency", "Glibc", "Musl", "Darwin", "Dispatch", "Synchronization",
        "Foundation", "FoundationEssentials", "FoundationInternationalization", "Testing", "XCTest",
    ]

    static var rows: [Row] { allowed.flatMap(\.rows) }

    @Test("every direct edge, declared or imported, is in its target's row; every target has one; every row is used")
    func onlyAllowedEdges() throws {
        let graph = try PackageGraph.described()
        let broken = Self.brokenEdges(graph: graph, imports: try SourceImports.scan(graph))
        #expect(broken.isEmpty, "module edges the table does not allow (Tests/ModuleBorderTests/ModuleBorderTests.swift, `allowed`):\n\(broken.joined(separator: "\n"))")
    }

    /// The failures for `graph` and the sources' imports, one line each, naming the edge.
    static func brokenEdges(graph: PackageGraph, imports: [String: SourceImports]) -> [String] {
        var broken: [String] = []
        let rows = Dictionary(rows.map { ($0.module, $0) }, uniquingKeysWith: { first, _ in first })
        for target in graph.targets.keys.sorted() {
            let declared = Set(graph.edges[target] ?? [])
            let scanned = imports[target] ?? SourceImports()
            for (module, place) in scanned.exported.sorted(by: { $0.key < $1.key }) {
                broken.append("\(target): @_exported import \(module) (\(place)): re-exports hide edges; import it where it is used")
            }
            var undeclared: [String] = []
            for (module, place) in scanned.imports.sorted(by: { $0.key < $1.key })
            where module != target && !toolchain.contains(module) && !declared.contains(module) {
                if let product = bundled[module], declared.contains(product) { continue }
                undeclared.append(module)
                broken.append("\(target) → \(module) (import in \(place)): imported but not a dependency in Package.swift")
            }
            if graph.targets[target] == "test" { continue }
            guard let row = rows[target] else {
                broken.append("\(target): a target with no row in `allowed`: say what it may depend on")
                continue
            }
            let may = Set(row.may)
            for module in declared.union(undeclared).sorted() where !may.contains(module) {
                let how = scanned.imports[module].map { "import in \($0)" } ?? "Package.swift"
                broken.append("\(target) → \(module) (\(how)): not in \(target)'s row of allowed edges")
            }
            let used = declared.union(scanned.imports.keys).union(scanned.imports.keys.compactMap { bundled[$0] })
            for module in row.may where !used.contains(module) {
                broken.append("\(target) → \(module): allowed but not a dependency: take it out of the row (the doc shows the rows)")
            }
        }
        for row in Self.rows where graph.targets[row.module] == nil {
            broken.append("\(row.module): a row in `allowed` for no target of the package")
        }
        return broken
    }

    /// Snap!'s game modules: its rules, protocol, sessions, bots, network and table.
    static let snapGame: Set<String> = [
        "SnapEngine", "SnapProtocol", "SnapSession", "SnapBots", "SnapSimulation", "SnapNet", "SnapTable",
    ]
    /// The network's libraries: TLS, certificates, services.
    static let network: Set<String> = ["NIOSSL", "NIOTLS", "X509", "ServiceLifecycle"]
    static let nio: Set<String> = network.union(["NIOCore", "NIOPosix", "NIOConcurrencyHelpers"])

    /// (module, what it must not link, why), followed transitively: the reasons behind rows.
    static let rules: [(String, Set<String>, String)] = [
        ("StoryEngine", snapGame, "Story is a second game on the platform"),
        ("StoryNotices", snapGame, "Story is a second game on the platform"),
        ("StoryProtocol", snapGame, "Story is a second game on the platform"),
        ("StoryLink", snapGame, "Story is a second game on the platform"),
        ("StoryStores", snapGame.union(["StoryLink"]), "Story is a second game on the platform; a store is no client"),
        ("StoryService", snapGame, "Story is a second game on the platform"),
        // The window's own database is the player's match index (SnapHistory's SQLite), no other.
        ("SnapUI", ["StoryService", "StoryStores", "PostgresNIO"], "the window is a client of the story service"),
        ("SnapNet", ["SnapHistory", "SQLiteNIO", "PostgresNIO"], "the host knows no database: its history is handed to it"),
        ("SnapHistory", network.union(["SnapNet", "SnapPlatform", "SnapLAN"]), "the match index links no network"),
        ("SnapMatchFiles", nio.union(["SnapPlatform", "SnapNet"]), "the match journals are files, read without NIO"),
        ("SnapFiles", nio.union(["SnapPlatform", "SnapBytes"]), "the platform's files need libc only"),
        ("SnapBytes", snapGame.union(["StoryEngine", "StoryProtocol"]), "the platform knows no game"),
        ("SnapPlatform", snapGame.union(["StoryEngine", "StoryProtocol", "SnapRelayProtocol", "SnapRelayClient", "SnapRelay"]),
         "the platform knows no game and no relay"),
        ("SnapSettings", snapGame, "the settings file's text needs no game"),
        // The relay pairs connections and copies bytes: it can link no game, so it can read none.
        ("SnapRelayProtocol", snapGame.union(["StoryEngine", "StoryProtocol", "SnapPlatform", "NIOCore"]), "the relay's lines are pure"),
        ("SnapRelay", snapGame.union(["StoryEngine", "StoryProtocol", "StoryService", "SnapJournal"]), "the relay knows no game"),
        ("SnapRelayClient", snapGame.union(["StoryEngine", "StoryProtocol", "SnapJournal"]), "the relay knows no game"),
        ("SnapLAN", ["SnapSession", "SnapNet", "NIOCore", "NIOPosix"], "the LAN's records are pure: the fuzzer builds them whole"),
        ("SnapScreens", ["CSDL2", "SnapUI", "SnapNet", "NIOCore"], "the screens are values, tested headless"),
        // postgres-nio imports full Foundation, and with it ICU's data (docs/ARCHITECTURE.md,
        // "The PostgreSQL helper"): only snapcards-story-postgres and snap-bench link it.
        ("snap", ["PostgresNIO", "StoryStoresPostgres", "SnapBench"], "the player's binary links no PostgreSQL driver and no workshop"),
        ("SnapCommandLine", snapGame.union(["PostgresNIO", "SnapUI"]), "the PostgreSQL helper is the story service alone"),
    ]

    @Test("no module links what its layer forbids (the manifest, transitively)")
    func noForbiddenEdge() throws {
        let graph = try PackageGraph.described()
        var broken: [String] = []
        for (module, forbidden, why) in Self.rules {
            guard let reached = graph.reachable(from: module) else {
                broken.append("\(module): a rule for no target of the package")
                continue
            }
            for edge in reached.intersection(forbidden).sorted() {
                broken.append("\(module) → \(edge) (\(graph.path(from: module, to: edge).joined(separator: " → "))): \(why)")
            }
        }
        #expect(broken.isEmpty, "forbidden module edges:\n\(broken.joined(separator: "\n"))")
    }

    /// The checks above pass trivially if the graph or the sources are read wrong; these are real.
    @Test("the graph and the imports as read have the edges the layers are built on")
    func graphIsRead() throws {
        let graph = try PackageGraph.described()
        #expect(graph.reachable(from: "StoryService")?.isSuperset(of: ["StoryStores", "SQLiteNIO", "StoryProtocol", "SnapBytes"]) == true)
        #expect(graph.reachable(from: "snapcards-story-postgres")?.isSuperset(of: ["SnapCommandLine", "StoryService", "StoryStoresPostgres", "PostgresNIO"]) == true)
        #expect(graph.reachable(from: "SnapUI")?.isSuperset(of: ["StoryLink", "StoryProtocol", "SnapNet", "SnapEngine", "SnapHistory"]) == true)
        #expect(graph.reachable(from: "snap")?.isSuperset(of: ["StoryService", "SnapCommandLine", "SnapUI", "SnapEngine"]) == true)
        #expect(graph.path(from: "SnapNet", to: "SnapEngine").first == "SnapNet")
        #expect(graph.reachable(from: "SnapRelay")?.isSuperset(of: ["SnapRelayProtocol", "SnapPlatform", "NIOSSL"]) == true)
        #expect(graph.targets["SnapEngineTests"] == "test" && graph.targets["SnapEngine"] == "library")
        let imports = try SourceImports.scan(graph)
        #expect(imports["SnapUI"]?.imports["CSDL2"] != nil)
        #expect(imports["StoryStores"]?.imports["VaporCSQLite"] != nil)
        #expect(imports["ModuleBorderTests"]?.imports["SnapTestSupport"] != nil)
        #expect(imports["SnapEngine"]?.imports.keys.allSatisfy(Self.toolchain.contains) == true)
    }

    /// A new edge fails, naming it: an import the target does not declare, a declared
    /// dependency its row lacks, an `@_exported import`, a target with no row.
    @Test("an edge added anywhere fails and is named")
    func newEdgeFails() throws {
        let graph = try PackageGraph.described()
        var imports = try SourceImports.scan(graph)
        let before = Set(Self.brokenEdges(graph: graph, imports: imports))
        imports["SnapEngine", default: SourceImports()].imports["SnapNet"] = "Sources/SnapEngine/Game.swift:1"
        imports["SnapBytes", default: SourceImports()].exported["SnapFiles"] = "Sources/SnapBytes/Frame.swift:1"
        var grown = graph
        grown.edges["SnapProtocol", default: []].append("NIOCore")
        grown.targets["SnapNew"] = "library"
        grown.edges["SnapNew"] = []
        let broken = Self.brokenEdges(graph: grown, imports: imports).filter { !before.contains($0) }
        #expect(broken.contains("SnapEngine → SnapNet (import in Sources/SnapEngine/Game.swift:1): imported but not a dependency in Package.swift"))
        #expect(broken.contains("SnapEngine → SnapNet (import in Sources/SnapEngine/Game.swift:1): not in SnapEngine's row of allowed edges"))
        #expect(broken.contains { $0.hasPrefix("SnapBytes: @_exported import SnapFiles") })
        #expect(broken.contains("SnapProtocol → NIOCore (Package.swift): not in SnapProtocol's row of allowed edges"))
        #expect(broken.contains { $0.hasPrefix("SnapNew: a target with no row") })
        #expect(broken.count == 5, "\(broken)")
    }

    /// docs/ARCHITECTURE.md's module table is drawn from `allowed`: this renders it and
    /// compares. `SNAP_WRITE_MODULE_TABLE=1 swift test --filter ModuleBorderTests` writes it.
    @Test("docs/ARCHITECTURE.md's table of modules is the allowed edges, as rendered from the rows")
    func documentedTable() throws {
        let path = PackageGraph.root.appending(path: "docs/ARCHITECTURE.md").path
        let doc = try String(contentsOfFile: path, encoding: .utf8)
        guard let begin = doc.firstRange(of: Self.tableBegin), let end = doc[begin.upperBound...].firstRange(of: Self.tableEnd) else {
            Issue.record("docs/ARCHITECTURE.md has no \(Self.tableBegin) … \(Self.tableEnd)")
            return
        }
        let rendered = "\n" + Self.renderedTable()
        if ProcessInfo.processInfo.environment["SNAP_WRITE_MODULE_TABLE"] == "1" {
            try (doc[..<begin.upperBound] + rendered + doc[end.lowerBound...]).write(toFile: path, atomically: true, encoding: .utf8)
            return
        }
        #expect(String(doc[begin.upperBound..<end.lowerBound]) == rendered,
                "docs/ARCHITECTURE.md's module table is not the rows of `allowed`; `SNAP_WRITE_MODULE_TABLE=1 swift test --filter ModuleBorderTests` rewrites it")
    }

    static let tableBegin = "<!-- module table: begin (drawn from Tests/ModuleBorderTests/ModuleBorderTests.swift) -->"
    static let tableEnd = "<!-- module table: end -->"

    /// The rows as the doc shows them: a table a layer, targets then products in brackets.
    static func renderedTable() -> String {
        let targets = Set(rows.map(\.module))
        var text = ""
        for (layer, rows) in allowed {
            text += "\n**\(layer)**\n\n| Module | May depend on | What it is |\n| --- | --- | --- |\n"
            for row in rows {
                let own = row.may.filter(targets.contains)
                let products = row.may.filter { !targets.contains($0) }
                var may = own.joined(separator: ", ")
                if !products.isEmpty { may += (may.isEmpty ? "" : " ") + "[" + products.joined(separator: ", ") + "]" }
                text += "| \(row.module) | \(may.isEmpty ? "—" : may) | \(row.what) |\n"
            }
        }
        return text + "\n"
    }
}

/// Targets and what each depends on directly: other targets and products of packages.
struct PackageGraph {
    var edges: [String: [String]] = [:]
    /// Each target's type (`library`, `executable`, `test`, `system-target`, …) and directory.
    var targets: [String: String] = [:]
    var paths: [String: String] = [:]

    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The manifest of this package (`swift package dump-package`), once for the suites: the
    /// targets as Package.swift declares them. Not `describe`, which resolves every dependency
    /// into its scratch directory first (46 s of a CI run, holding four of the blocking tests'
    /// places); a manifest names its edges without them. Its own scratch directory, so it never
    /// waits for the `.build` lock the running `swift test` holds.
    static func described() throws -> PackageGraph { try once.get() }
    private static let once = Result { try describe() }

    private static func describe() throws -> PackageGraph {
        let scratch = FileManager.default.temporaryDirectory.appending(path: "module-borders-\(getpid())")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = ["swift", "package", "--package-path", root.path, "--scratch-path", scratch.path, "dump-package"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure("swift package dump-package exited \(process.terminationStatus)") }
        return try PackageGraph(json: data)
    }

    /// The targets of a manifest's JSON: each dependency (`byName`, `target` or `product`, any
    /// condition) is an edge; a target's type is named as `describe` names it (`library`,
    /// `executable`, `test`, `system-target`), its directory the manifest's or the default one.
    init(json: Data) throws {
        struct Manifest: Decodable {
            struct Target: Decodable {
                var name: String
                var type: String
                var path: String?
                var dependencies: [[String: [Dependency?]]]
            }
            /// The first element of each dependency's array is the name; the rest (package,
            /// conditions) are read and dropped.
            enum Dependency: Decodable {
                case name(String), other
                init(from decoder: any Decoder) throws {
                    self = (try? decoder.singleValueContainer().decode(String.self)).map(Dependency.name) ?? .other
                }
            }
            var targets: [Target]
        }
        for target in try JSONDecoder().decode(Manifest.self, from: json).targets {
            edges[target.name] = target.dependencies.compactMap { dependency in
                guard let first = dependency.values.first?.first, case .name(let name)? = first else { return nil }
                return name
            }
            let type = ["regular": "library", "system": "system-target"][target.type] ?? target.type
            targets[target.name] = type
            paths[target.name] = target.path ?? (type == "test" ? "Tests/" : "Sources/") + target.name
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

/// The modules a target's sources import (each with its first place, `path:line`), read from
/// every `.swift` file under the target's directory, whatever `#if` it sits in.
struct SourceImports {
    var imports: [String: String] = [:]
    var exported: [String: String] = [:]

    static func scan(_ graph: PackageGraph) throws -> [String: SourceImports] {
        var scanned: [String: SourceImports] = [:]
        for (target, path) in graph.paths {
            let directory = PackageGraph.root.appending(path: path)
            guard let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else { continue }
            var found = SourceImports()
            for case let file as URL in files where file.pathExtension == "swift" {
                let relative = path + "/" + file.path.dropFirst(directory.path.count + 1)
                for (number, line) in try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    guard let (module, isExported) = importedModule(line) else { continue }
                    let place = "\(relative):\(number + 1)"
                    if found.imports[module] == nil || place < found.imports[module]! { found.imports[module] = place }
                    if isExported { found.exported[module] = place }
                }
            }
            scanned[target] = found
        }
        return scanned
    }

    /// `import M`, `@testable import M`, `package import M`, `import struct M.T`,
    /// `@_exported import M`: M, and whether it is re-exported; nil for any other line.
    static func importedModule(_ line: Substring) -> (String, Bool)? {
        var words = line.split(whereSeparator: \.isWhitespace)[...]
        var exported = false
        while let first = words.first, first.hasPrefix("@") {
            // An attribute, `@name` or `@name(arguments)` in one word; `@Test("…` is not an import.
            let name = first.dropFirst().prefix { $0 != "(" }
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }),
                  name.count == first.count - 1 || first.last == ")" else { return nil }
            if name == "_exported" { exported = true }
            words = words.dropFirst()
        }
        let access: Set<Substring> = ["public", "package", "internal", "fileprivate", "private"]
        if let first = words.first, access.contains(first) { words = words.dropFirst() }
        guard words.first == "import", words.count >= 2 else { return nil }
        words = words.dropFirst()
        let kinds: Set<Substring> = ["typealias", "struct", "class", "enum", "protocol", "let", "var", "func"]
        if let kind = words.first, kinds.contains(kind) { words = words.dropFirst() }
        guard let path = words.first, let module = path.split(separator: ".").first,
              module.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { return nil }
        return (String(module), exported)
    }
}
