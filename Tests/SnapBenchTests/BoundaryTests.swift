import Foundation
import Testing
import SnapTestSupport

/// SnapBench holds every benchmark and attack driver so that what a game links holds only
/// the game: no target but the `snap-bench` executable (and the tests) may import it, not
/// even the player's `snapcards`.
@Suite("No library imports SnapBench", .blocksThreads)
struct BoundaryTests {
    /// The package's root: this file is Tests/SnapBenchTests/BoundaryTests.swift.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let allowed: Set<String> = ["snap-bench", "SnapBench"]

    /// Whether a line of Swift imports SnapBench, in any form the compiler takes
    /// (`@testable import`, `internal import`, `import struct SnapBench.X`, …).
    static func importsBench(_ line: Substring) -> Bool {
        // Most lines are neither: skip the (slow) regex for them.
        guard line.contains("import"), line.contains("SnapBench") else { return false }
        return line.wholeMatch(of: /\s*(@[A-Za-z_]+(\([^)]*\))?\s+)*((public|package|internal|fileprivate|private)\s+)?import\s+((typealias|struct|class|enum|protocol|let|var|func)\s+)?SnapBench(\.[A-Za-z0-9_.]+)?\s*(\/\/.*)?/) != nil
    }

    @Test("the import pattern sees every form of import, and only SnapBench")
    func pattern() {
        for line in ["import SnapBench", "@testable import SnapBench", "  internal import SnapBench  // why",
                     "@_exported import SnapBench", "@preconcurrency public import SnapBench",
                     "import struct SnapBench.NetBenchmark"] {
            #expect(Self.importsBench(Substring(line)), "\(line)")
        }
        for line in ["import SnapBenchTools", "import SnapNet", "// import SnapBench later? no", "let SnapBench = 1"] {
            #expect(!Self.importsBench(Substring(line)), "\(line)")
        }
    }

    @Test("only Sources/snap-bench and SnapBench itself import SnapBench: not Sources/snap, not Fuzz")
    func noLibraryImportsBench() throws {
        let files = FileManager.default
        let sources = Self.root.appendingPathComponent("Sources")
        let targets = try files.contentsOfDirectory(atPath: sources.path)
        #expect(targets.contains("SnapBench") && targets.contains("snap-bench") && targets.contains("snap"),
                "not the package's Sources: \(sources.path)")
        var directories = targets.filter { !Self.allowed.contains($0) }.map { sources.appendingPathComponent($0) }
        directories.append(Self.root.appendingPathComponent("Fuzz"))
        var offenders: [String] = []
        for directory in directories {
            guard let walker = files.enumerator(atPath: directory.path) else { continue }
            for case let path as String in walker where path.hasSuffix(".swift") {
                let file = directory.appendingPathComponent(path)
                let text = try String(contentsOf: file, encoding: .utf8)
                if text.split(separator: "\n", omittingEmptySubsequences: false).contains(where: Self.importsBench) {
                    offenders.append(String(file.path.dropFirst(Self.root.path.count + 1)))
                }
            }
        }
        #expect(offenders.isEmpty, "imports SnapBench, which only snap-bench may: \(offenders.joined(separator: ", "))")
        #expect(!directories.isEmpty)
    }
}
