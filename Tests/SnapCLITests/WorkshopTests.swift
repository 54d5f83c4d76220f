import Foundation
import Testing
import SnapTestSupport

/// The benchmarks moved out of the player's binary into `snap-bench`, with the same
/// commands (scripts/test checks that `snapcards` has no SnapBench symbol).
@Suite("snap-bench apart from snap", .blocksThreads)
struct WorkshopTests {
    @Test("snap has no bench command, in its help or on its command line")
    func snapHasNoBench() throws {
        for help in [["--help"], ["--help-hidden"]] {
            let run = try runSnap(help)
            #expect(run.status == 0, "\(run.error)")
            #expect(run.output.contains("simulate"), "not snap's help: \(run.output)")
            #expect(!run.output.contains("bench"), "\(help): \(run.output)")
        }
        let run = try runSnap(["bench", "engine", "--rounds", "1"])
        #expect(run.status == 64, "\(run.output)\(run.error)")
        #expect(!run.output.contains("snap bench engine:"))
    }

    @Test("the servers carry no benchmark flag, hidden or shown: they moved to snap-bench host and story-service")
    func noBenchmarkFlags() throws {
        for command in [["host"], ["story", "serve"]] {
            let run = try runSnap(command + ["--help-hidden"])
            #expect(run.status == 0 && run.output.contains("USAGE: snapcards \(command.joined(separator: " "))"), "\(run.output)\(run.error)")
            for flag in ["bench", "--still-table", "--plain-tcp", "--sweep-milliseconds"] {
                #expect(!run.output.contains(flag), "\(command): \(flag)")
            }
        }
        let host = try runSnapBench(["host", "--help"])
        #expect(host.output.contains("--still-table") && host.output.contains("--plain-tcp"), "\(host.output)")
    }

    @Test("snap-bench has the commands snap bench had")
    func snapBenchHasThem() throws {
        let run = try runSnapBench(["--help"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.contains("USAGE: snap-bench <subcommand>"), "\(run.output)")
        for command in ["engine", "net", "attack", "rejoin", "story"] {
            #expect(run.output.contains("\n  \(command) "), "no \(command) in: \(run.output)")
        }
    }
}

@Suite("snap --version", .blocksThreads)
struct VersionTests {
    @Test("prints the version written once in Sources/snap/Version.swift, and nothing else")
    func version() throws {
        let source = try String(contentsOf: URL(filePath: #filePath).deletingLastPathComponent()
            .appending(path: "../../Sources/snap/Version.swift").standardized, encoding: .utf8)
        let written = try #require(source.split(separator: "\n").first { $0.hasPrefix("let snapVersion = ") })
        let version = written.split(separator: "\"")[1]
        #expect(version.split(separator: ".").count == 3 && version.split(separator: ".").allSatisfy { Int($0) != nil }, "\(version)")
        let run = try runSnap(["--version"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output == "\(version)\n")
    }
}
