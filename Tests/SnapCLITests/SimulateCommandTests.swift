import Foundation
import Testing
import SnapTestSupport

/// The built `snapcards` binary, run as a separate process, as a person would.
func runSnap(_ arguments: [String], executable: String = "snapcards") throws -> (status: Int32, output: String, error: String) {
    let process = Process()
    process.executableURL = snapBinary(named: executable)
    process.arguments = arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let output = out.fileHandleForReading.readDataToEndOfFile()
    let error = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: error, as: UTF8.self))
}

/// `snap-bench`, the benchmarks' own executable, built beside `snapcards`.
func runSnapBench(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
    try runSnap(arguments, executable: "snap-bench")
}

@Suite("snapcards simulate, as a process", .blocksThreads)
struct SimulateCommandTests {
    @Test("prints the summary lines and the same bytes for the same seed")
    func summary() throws {
        let arguments = ["simulate", "--players", "3", "--rounds", "4", "--seed", "21", "--level", "hard"]
        let first = try runSnap(arguments)
        #expect(first.status == 0)
        let lines = first.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "Snap! simulation: 3 players (Ray, Lucy, Steve), level hard, seed 21, original rules")
        #expect(lines.contains("rounds played: 4 of 4 (unfinished: 0)"))
        #expect(lines.contains { $0.hasPrefix("turns per round: p50 ") })
        #expect(lines.contains { $0.hasPrefix("snaps: correct ") })
        #expect(lines.contains { $0.hasPrefix("card conservation: held after every one of ") })
        let second = try runSnap(arguments)
        #expect(second.output == first.output)
    }

    @Test("bad options get a clear error and a non-zero exit")
    func badOptions() throws {
        let players = try runSnap(["simulate", "--players", "5"])
        #expect(players.status != 0)
        #expect(players.error.contains("--players must be 2, 3 or 4"))
        let level = try runSnap(["simulate", "--level", "genius"])
        #expect(level.status != 0)
        #expect(level.error.contains("genius"))
    }

    @Test("a round past --abandon-after exits 2 and says so")
    func abandoned() throws {
        let result = try runSnap(["simulate", "--rounds", "1", "--abandon-after", "3"])
        #expect(result.status == 2)
        #expect(result.output.contains("stopped: a round passed 3 turns"))
    }
}
