#if GUI
import Foundation
import Glibc
import Logging
import NIOCore
import SnapNet
import SnapProtocol
import SnapSession
@testable import SnapUI
import SnapTestSupport
import Testing

extension InProcessWindows {
/// Every ping is answered exactly once: a window's link answers on its network thread
/// (its loop never answers again), a computer player through its session.
@Suite("One pong per ping", .blocksThreads, .serialized)
struct PingTests {
    static let logger = Logger(label: "test")

    init() {
        // SDL reads these in this process; scripts/test exports both first, so (0: never replace) these change nothing there.
        setenv("SDL_VIDEODRIVER", "offscreen", 0)
        setenv("SDL_AUDIODRIVER", "dummy", 0)
    }

    enum Peer: String, CaseIterable, CustomStringConvertible {
        case window, bot
        var description: String { rawValue }
    }

    @Test("a window (its link and its drain) and a computer player each send one pong per ping", arguments: Peer.allCases)
    func onePongPerPing(_ peer: Peer) async throws {
        let host = try ScriptedHost()
        var client: GameClient?
        var bot: BotConnection?
        switch peer {
        case .window:
            client = try await GameStarter.tests.join(.unix(host.path), name: "Pip")
        case .bot:
            bot = BotConnection(name: "Bee", bot: BotClient(seed: 1), loop: GameStarter.loops.next(), logger: Self.logger)
            _ = try bot!.run(.unix(host.path))
        }
        try host.accept()
        // Pings come once the client has signed in, as a host sends them.
        let signIn = Date().addingTimeInterval(5)
        var greeted = false
        while !greeted, Date() < signIn {
            _ = client?.poll(now: 0)
            greeted = host.read().contains { if case .hello = $0 { true } else { false } }
            usleep(10_000)
        }
        #expect(greeted, "\(peer) never said hello")
        let nonces: [UInt64] = [11, 22, 33, 44, 55]
        var pongs: [UInt64: Int] = [:]
        for nonce in nonces {
            host.send([.ping(nonce: nonce)])  // numbered 0, 1, 2… on this connection
            // The window drains its messages as its loop would, every frame for 0.3 s.
            let until = Date().addingTimeInterval(0.3)
            while Date() < until {
                _ = client?.poll(now: 0)
                for case .pong(let echoed) in host.read() { pongs[echoed, default: 0] += 1 }
                usleep(10_000)
            }
        }
        #expect(pongs == Dictionary(uniqueKeysWithValues: nonces.map { ($0, 1) }), "\(peer): pongs per nonce \(pongs)")
        client?.link.close()
        _ = bot
    }

    @Test("a window whose loop does not drain its messages for 6 s keeps its seat", .timeLimit(.minutes(5)))
    func stalledWindowKeepsItsSeat() async throws {
        let base = scratchPath("snap-ping")
        try? FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        let path = base + "/Stall.sock"
        let host = try await GameStarter.tests.host(name: "Stall", turnTimeout: nil, socket: path, logger: Self.logger)
        defer { host.leave() }
        let slow = try await GameStarter.tests.join(.unix(path), name: "Slow")
        func pollBoth(for seconds: Double, _ clients: [GameClient], until done: () -> Bool = { false }) {
            let until = Date().addingTimeInterval(seconds)
            while Date() < until, !done() {
                for client in clients { _ = client.poll(now: 0) }
                usleep(10_000)
            }
        }
        pollBoth(for: 5, [host, slow]) {
            host.session.lobby.contains { $0.name == "Slow" && $0.ready }
        }
        host.start()
        pollBoth(for: 5, [host, slow]) { slow.session.phase == .playing && host.session.phase == .playing }
        #expect(slow.session.phase == .playing)
        let seat = try #require(slow.session.seat)
        // The stall: the host pings every second; only the link's network thread answers.
        pollBoth(for: 6, [host])
        // Then the window drains everything at once.
        pollBoth(for: 2, [host, slow])
        #expect(slow.session.phase == .playing, "the stalled window was cut: \(slow.session.phase)")
        #expect(slow.link.connectionLost == nil)
        #expect(host.session.table?[seat].isPresent == true, "the host no longer seats Slow")
        slow.leave()
    }
}
}

#endif
