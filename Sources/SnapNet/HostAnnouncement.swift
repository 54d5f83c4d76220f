import Logging
import SnapBytes
import NIOCore
import SnapPlatform
import SnapProtocol

/// A host's game on the local network's lists (DNS-SD over multicast DNS, docs/LAN.md): at
/// most one `LANAnnouncer` at a time, refreshed as the lobby changes, its goodbye sent when
/// it stops. Touched on `loop` only, but for `start`, which hands the announcer to it.
final class HostAnnouncement: @unchecked Sendable {  // loop-confined (see above)
    let loop: EventLoop
    private var announcer: LANAnnouncer?

    init(loop: EventLoop) { self.loop = loop }

    /// Where a game listening on `host` is announced: a game on a loopback address on
    /// loopback only (and only 127.0.0.1); any other at the machine's reachable addresses
    /// but loopback, through the system's multicast route.
    static func placement(listeningOn host: String, reachable: (String) -> [String] = reachableAddresses(listeningOn:))
        -> (addresses: [String], interface: String?) {
        let loopback = host.hasPrefix("127.") || host == "::1" || host == "localhost"
        return loopback ? (["127.0.0.1"], "127.0.0.1") : (reachable(host).filter { !$0.hasPrefix("127.") }, nil)
    }

    /// Announces `hostName`'s game, for players to connect to `port` (see `placement`);
    /// `current` says what the lists show (on the loop). Throws when multicast is not possible here.
    func start(hostName: String, listeningOn host: String, port: Int, fingerprint: CertificateFingerprint?,
               logger: Logger, current: @escaping () -> HostInfo) async throws {
        let (addresses, interface) = Self.placement(listeningOn: host)
        let announcer = LANAnnouncer(loop: loop, hostName: hostName, port: port, addresses: addresses, interface: interface,
                                     fingerprint: fingerprint, logger: logger, current: current)
        try await announcer.start()
        loop.execute { self.announcer = announcer }
    }

    /// Stops announcing: the goodbye goes out, then the future completes. On the loop.
    func stop() -> EventLoopFuture<Void> {
        let goodbye = announcer?.stopOnLoop() ?? loop.makeSucceededVoidFuture()
        announcer = nil
        return goodbye
    }

    /// Announces at once if what the lists show changed. On the loop.
    func refresh() { announcer?.refresh() }

    /// Announcement bytes sent so far (0 when not announcing). On the loop.
    var bytesSent: Int { announcer?.bytesSent ?? 0 }
}
