import Foundation
import Glibc
import Logging
import NIOPosix
import SnapBytes
import SnapNet
import SnapPlatform
import SnapProtocol
import SnapSession
import SnapTestSupport
import Testing

/// `SeatConnection` over a real Unix socket, against a host the test scripts: a window's
/// link and a computer player carry their `SeatLink`'s actions out.
@Suite("A seat's connection over a socket", .blocksThreads, .serialized)
struct SeatConnectionTests {
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    static let token = SeatToken(bytes: Array(1...16))!
    static let stale = SeatToken(bytes: Array(repeating: 5, count: 16))!
    static let started = GameStart(yourSeat: .bottom, players: [SeatedPlayer(seat: .bottom, name: "Ann"),
                                                                SeatedPlayer(seat: .top, name: "Bob")],
                                   turnLimit: nil, graceMillis: 30_000)

    static func welcome(_ token: SeatToken?) -> HostMessage {
        .welcome(Welcome(version: ProtocolVersion.supported.upperBound, hostName: "Table", playerID: 1, token: token))
    }

    static func eventually(_ seconds: Double = 5, _ condition: () -> Bool) -> Bool {
        let until = Date().addingTimeInterval(seconds)
        while Date() < until {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    @Test("a window's link: one pong per ping; dropped mid-game it redials, shows its token, and the rejoin's welcome is not delivered",
          .timeLimit(.minutes(5)))
    func windowRejoins() throws {
        let host = try ScriptedHost()
        let store = SeatTokenStore(directory: scratchDirectory("seat-links"))
        let endpoint = Endpoint.unix(host.path)
        let link = try connectLinkLater(to: endpoint, on: Self.group.next(), hello: Hello(name: "Ann"), tokens: store).wait()
        try host.accept()
        var heard: [ClientMessage] = []
        #expect(Self.eventually { heard += host.read(); return !heard.isEmpty })
        #expect(heard.first == .hello(Hello(name: "Ann")))
        host.send([Self.welcome(Self.token), .gameStarted(Self.started), .ping(nonce: 7)])
        var drained: [HostMessage] = []
        #expect(Self.eventually { drained += link.drain(); return drained.count == 2 })
        #expect(drained == [Self.welcome(Self.token), .gameStarted(Self.started)], "a ping is never delivered")
        #expect(Self.eventually { heard += host.read(); return heard.contains(.pong(nonce: 7)) })
        #expect(store.token(for: endpoint, name: "Ann") == Self.token)

        host.hangUp()
        #expect(Self.eventually { link.reconnecting })
        try host.accept()
        heard = []
        #expect(Self.eventually { heard += host.read(); return !heard.isEmpty })
        #expect(heard.first == .hello(Hello(name: "Ann", token: Self.token)))
        host.send([Self.welcome(Self.token), .gameStarted(Self.started), .watching(2)])
        drained = []
        #expect(Self.eventually { drained += link.drain(); return !drained.isEmpty && !link.reconnecting })
        #expect(drained == [.watching(2)])
        #expect(link.connectionLost == nil)

        host.send([.closing(.gameFinished, message: "all rounds played")])
        drained = []
        #expect(Self.eventually { drained += link.drain(); return !drained.isEmpty })
        #expect(drained == [.closing(.gameFinished, message: "all rounds played")])
        #expect(store.token(for: endpoint, name: "Ann") == nil, "a finished game's token takes nothing back")
        link.close()
    }

    @Test("a computer player refused for a stale token in the lobby forgets it and signs in afresh; the host's goodbye ends its run",
          .timeLimit(.minutes(5)))
    func botSignsInAfresh() throws {
        let host = try ScriptedHost()
        let store = SeatTokenStore(directory: scratchDirectory("seat-bots"))
        let endpoint = Endpoint.unix(host.path)
        store.keep(Self.stale, for: endpoint, name: "Bee")
        let bot = BotConnection(name: "Bee", bot: BotClient(seed: 1), loop: Self.group.next(), logger: Logger(label: "test"))
        bot.tokenStore = store
        let outcome = try bot.run(endpoint)
        try host.accept()
        var heard: [ClientMessage] = []
        #expect(Self.eventually { heard += host.read(); return !heard.isEmpty })
        #expect(heard.first == .hello(Hello(name: "Bee", token: Self.stale)))
        host.send([.closing(.badToken, message: "that token holds no seat here")])
        try host.accept()
        heard = []
        #expect(Self.eventually { heard += host.read(); return !heard.isEmpty })
        #expect(heard.first == .hello(Hello(name: "Bee")))
        host.send([Self.welcome(Self.token)])
        #expect(Self.eventually { heard += host.read(); return heard.contains(.ready) })
        #expect(store.token(for: endpoint, name: "Bee") == Self.token)
        host.send([.closing(.hostQuit, message: "the host ended the game")])
        #expect(try outcome.wait() == .ended(.hostQuit, "the host ended the game"))
    }

    @Test("a computer player that finds no host: its run's future fails with the connection's error")
    func noHost() throws {
        let bot = BotConnection(name: "Bee", bot: BotClient(seed: 1), loop: Self.group.next(), logger: Logger(label: "test"))
        #expect(throws: NetError.self) { try bot.run(.unix(scratchPath("nobody-\(UInt32.random(in: 0...UInt32.max)).sock"))).wait() }
    }
}
