import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import SnapProtocol
import SnapSession
import Testing
@testable import SnapNet

/// The host's own players in its process (`LocalLinks`, `HostServer.connectLocal`) and its
/// game on the LAN's lists (`HostAnnouncement`): values and an embedded loop, no sockets.
@Suite("A host's local links and announcement")
struct LocalLinksTests {
    @Test("a local link is handed what the session sends it, until it is detached; others are not local")
    func deliverUntilDetached() {
        let links = LocalLinks()
        let link = GameLink()
        links.attach(link, as: ConnectionID(3))
        #expect(links.deliver(.ping(nonce: 1), to: ConnectionID(3)))
        #expect(!links.deliver(.ping(nonce: 2), to: ConnectionID(4)))
        #expect(link.drain() == [.ping(nonce: 1)])
        #expect(links.detach(ConnectionID(3)))
        #expect(!links.detach(ConnectionID(3)))
        #expect(!links.deliver(.ping(nonce: 3), to: ConnectionID(3)))
        #expect(link.drain().isEmpty)
    }

    @Test("connectLocal: the host's own player signs in through the session, with no socket, and leaves")
    func connectLocal() throws {
        let loop = EmbeddedEventLoop()
        let server = HostServer(HostConfiguration(hostName: "Host"), loop: loop, logger: Logger(label: "test"))
        let link = server.connectLocal()
        link.send(.hello(Hello(name: "Host")))
        #expect(link.drain().isEmpty)  // nothing before the loop runs
        loop.run()
        let messages = link.drain()
        #expect(messages.contains { if case .welcome = $0 { true } else { false } }, "\(messages)")
        #expect(messages.contains { if case .lobby(let players) = $0 { players.map(\.name) == ["Host"] } else { false } }, "\(messages)")
        link.close()
        loop.run()
        server.shutdown(reason: "test over")
        loop.run()
        let over = NIOLockedValueBox<String?>(nil)
        server.finished.whenSuccess { reason in over.withLockedValue { $0 = reason } }
        #expect(over.withLockedValue { $0 } == "test over")
        try loop.syncShutdownGracefully()
    }

    @Test("announced: a game on loopback on loopback only; any other at its addresses but loopback")
    func announcementPlacement() {
        for host in ["127.0.0.1", "127.0.1.1", "::1", "localhost"] {
            let placed = HostAnnouncement.placement(listeningOn: host) { _ in Issue.record("asked for addresses"); return [] }
            #expect(placed.addresses == ["127.0.0.1"] && placed.interface == "127.0.0.1", "\(host)")
        }
        let placed = HostAnnouncement.placement(listeningOn: "0.0.0.0") { host in
            #expect(host == "0.0.0.0")
            return ["127.0.0.1", "192.168.1.20", "10.0.0.5"]
        }
        #expect(placed.addresses == ["192.168.1.20", "10.0.0.5"] && placed.interface == nil)
    }

    @Test("not announcing: stopping is done at once, and nothing was sent")
    func notAnnouncing() throws {
        let loop = EmbeddedEventLoop()
        let announcement = HostAnnouncement(loop: loop)
        let stopped = NIOLockedValueBox(false)
        announcement.stop().whenSuccess { stopped.withLockedValue { $0 = true } }
        #expect(stopped.withLockedValue { $0 })
        #expect(announcement.bytesSent == 0)
        try loop.syncShutdownGracefully()
    }
}
