import Foundation
import NIOPosix
import SnapEngine
import SnapNet
import SnapPlatform
import SnapProtocol
import SnapTestSupport
import Testing

/// `seatsAtTable` against a host the test scripts: what it says on the wire (a watcher's
/// hello, then leave) and what it reads (names from gameStarted, away from the snapshot).
@Suite("Who is away at a started table", .blocksThreads, .serialized)
struct TablePeekTests {
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    static let started = GameStart(yourSeat: nil, players: [SeatedPlayer(seat: .bottom, name: "Ann"),
                                                            SeatedPlayer(seat: .left, name: "Player 2"),
                                                            SeatedPlayer(seat: .top, name: "Player 3"),
                                                            SeatedPlayer(seat: .right, name: "Gone")],
                                   turnLimit: nil, graceMillis: 30_000)

    final class Outcome: @unchecked Sendable {  // written once by the asking thread, read after `done`
        var result: Result<[SeatAtTable], Error>?
        let done = DispatchSemaphore(value: 0)
    }

    static func ask(_ path: String) -> Outcome {
        let outcome = Outcome()
        Thread.detachNewThread {
            outcome.result = Result { try seatsAtTable(.unix(path), name: "Zed", loop: group.next()).wait() }
            outcome.done.signal()
        }
        return outcome
    }

    static func heard(_ host: ScriptedHost, _ count: Int) -> [ClientMessage] {
        var heard: [ClientMessage] = []
        let until = Date().addingTimeInterval(5)
        while Date() < until, heard.count < count {
            heard += host.read()
            usleep(10_000)
        }
        return heard
    }

    @Test("signs in to watch, reads each seat's away flag, leaves; a seat whose player left is not listed",
          .timeLimit(.minutes(5)))
    func awayFromSnapshot() throws {
        let host = try ScriptedHost()
        let outcome = Self.ask(host.path)
        try host.accept()
        let hello = Self.heard(host, 1)
        #expect(hello == [.hello(Hello(name: "Zed", role: .watcher))])
        var table = TableView(seats: [.bottom, .left, .top, .right])
        table.phase = .playing
        table[.top].isAbsent = true
        table[.right].isPresent = false
        host.send([.welcome(Welcome(version: ProtocolVersion.supported.upperBound, hostName: "Ann", playerID: 0xFF)),
                   .gameStarted(Self.started), .wonCounts([]),
                   .snapshot(TableSnapshot(table: table, turnsThisRound: 0)), .watching(1)])
        #expect(Self.heard(host, 1) == [.leave], "a watcher says goodbye")
        // It answers once the host has hung up (closing first made a host that was still
        // writing see the hang-up mid-write, and announce the watcher gone before it came).
        #expect(outcome.done.wait(timeout: .now() + 0.5) == .timedOut, "it answered before the host hung up")
        host.hangUp()
        #expect(outcome.done.wait(timeout: .now() + 10) == .success)
        let seats = try #require(try outcome.result?.get())
        #expect(seats == [SeatAtTable(seat: .bottom, name: "Ann", away: false),
                          SeatAtTable(seat: .left, name: "Player 2", away: false),
                          SeatAtTable(seat: .top, name: "Player 3", away: true)])
    }

    @Test("a host that refuses, or is still in its lobby, is an error, not an empty table", .timeLimit(.minutes(5)))
    func noTable() throws {
        for answer in [HostMessage.closing(.wrongCode, message: "wrong join code"), .lobby([])] {
            let host = try ScriptedHost()
            let outcome = Self.ask(host.path)
            try host.accept()
            _ = Self.heard(host, 1)
            host.send(answer == .lobby([])
                      ? [.welcome(Welcome(version: ProtocolVersion.supported.upperBound, hostName: "Ann", playerID: 0xFF)), answer]
                      : [answer])
            #expect(outcome.done.wait(timeout: .now() + 10) == .success)
            #expect(throws: NetError.self) { try outcome.result?.get() }
        }
    }
}
