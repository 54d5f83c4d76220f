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

/// The player's binary links FoundationEssentials, never full Foundation, whose
/// FoundationInternationalization brings ICU's 34 MB of data (docs/PERFORMANCE.md, "The
/// player's binary"). Read from the debug build's dynamic section, where each Swift library a
/// module imports is a NEEDED entry; scripts/package checks the static release binary's symbols.
@Suite("snapcards without full Foundation", .blocksThreads)
struct NoFullFoundationTests {
    /// The NEEDED entries of an ELF file (`readelf -d`).
    func needed(_ binary: URL) throws -> [String] {
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = ["readelf", "-d", binary.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "readelf -d \(binary.path) exited \(process.terminationStatus)")
        // "0x0000000000000001 (NEEDED)             Shared library: [libFoundationEssentials.so]"
        return text.split(separator: "\n").filter { $0.contains("(NEEDED)") }.compactMap { line in
            line.split(separator: "[").last.map { String($0.dropLast()) }
        }
    }

    @Test("snapcards needs libFoundationEssentials.so and no libFoundation.so, FoundationInternationalization or ICU; the PostgreSQL helper is where full Foundation went")
    func essentialsOnly() throws {
        let player = try needed(snapBinary())
        // The read is real: snapcards does use FoundationEssentials (JSONEncoder, Date).
        #expect(player.contains("libFoundationEssentials.so"), "\(player)")
        let full = ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so"]
        #expect(player.filter(full.contains).isEmpty, "snapcards links full Foundation: a module it links imports Foundation, not FoundationEssentials: \(player)")
        // postgres-nio imports Foundation: its helper shows the entry this test looks for.
        let helper = try needed(snapBinary(named: "snapcards-story-postgres"))
        #expect(helper.contains("libFoundation.so"), "\(helper)")
    }
}
