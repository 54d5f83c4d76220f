import Foundation
import Testing
import SnapTestSupport

/// `snapcards host --headless` with no options is a game, not a usage error.
@Suite("snapcards host's defaults", .blocksThreads, .serialized)
struct HostDefaultsTests {
    @Test("with no options, a headless host seats one computer player and plays one joined player", .timeLimit(.minutes(5)))
    func noOptions() throws {
        let directory = makeRuntimeDirectory()
        let host = try SnapProcess(["host", "--headless", "--name", "Plain", "--speed", "0.01", "--turn-limit", "150"],
                                   runtimeDirectory: directory)
        #expect(host.line(startingWith: "listening on unix:") != nil, "\(host.output)\(host.errors)")
        let bot = try SnapProcess(["join", "--bot", "--name", "Ann", "--speed", "0.01"], runtimeDirectory: directory)
        #expect(host.exitStatus() == 0, "\(host.output)\(host.errors)")
        #expect(host.lines.contains { $0.hasPrefix("round 1: ") && $0.hasSuffix(" wins") }, "\(host.output)")
        #expect(bot.exitStatus() == 0)
    }

    @Test("--start-when 1 --bots 0 is still refused: one player is no game")
    func onePlayerRefused() throws {
        let host = try SnapProcess(["host", "--headless", "--name", "Lonely", "--bots", "0"],
                                   runtimeDirectory: makeRuntimeDirectory())
        #expect(host.exitStatus(timeout: 20) == 64)
        #expect(host.errors.contains("--start-when plus --bots must make 2 to 4 players"), "\(host.errors)")
    }
}
