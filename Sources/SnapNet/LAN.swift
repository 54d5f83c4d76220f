#if canImport(Glibc)
import Glibc
#endif
import SnapBytes
import SnapLAN
import SnapPlatform
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SnapProtocol

extension LANGame {
    public var endpoint: Endpoint { .tcp(host: address, port: port) }
}

extension SnapService {
    /// How often a host repeats its announcement (and answers queries at once).
    public static let interval: TimeAmount = .seconds(1)
}

/// A UDP socket on the mDNS port, in the group: shared with any other responder on the
/// machine (SO_REUSEADDR), multicast TTL 255 as RFC 6762 §11 asks. One chain of futures on
/// `loop`: its caller waits once, and a socket that cannot join is closed, never leaked.
private func mdnsChannel(loop: EventLoop, interface: String?,
                         handler: @escaping @Sendable () -> ChannelHandler) -> EventLoopFuture<Channel> {
    // The interfaces are listed here, before the loop is involved: it is a system call.
    let devices = (try? System.enumerateDevices()) ?? []
    return DatagramBootstrap(group: loop)
        .channelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
        // Room for a flooded network's datagrams while this process waits for a core: at the
        // default 208 KiB, LANTests' hostile flood (10,000 datagrams a second) on a busy
        // machine overflowed it (4,061 dropped, the kernel's RcvbufErrors), and a real game's
        // answer can be among them; with 4 MiB, none. The kernel caps it at net.core.rmem_max.
        .channelOption(ChannelOptions.socketOption(.so_rcvbuf), value: 4 << 20)
        // And drained faster when it gets one: up to 64 datagrams a system call (recvmmsg), each
        // in its own 2 KiB slice of one pooled buffer (NIO's datagram default is one datagram
        // in 2 KiB a call). Beside six busy loops the flood still overflowed the 4 MiB buffer by
        // 14,752–22,815 datagrams a run, one at a time; 64 at a time, by 0–3,657.
        .channelOption(ChannelOptions.datagramVectorReadMessageCount, value: 64)
        .channelOption(ChannelOptions.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 64 * 2048))
        .channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(handler()) }
        }
        .bind(host: "0.0.0.0", port: SnapService.port)
        .flatMap { channel in
            joinMDNSGroup(channel, interface: interface, devices: devices)
                .map { channel }
                .flatMapError { error in
                    channel.close(promise: nil)
                    return loop.makeFailedFuture(error)
                }
        }
}

private func joinMDNSGroup(_ channel: Channel, interface: String?, devices: [NIONetworkDevice]) -> EventLoopFuture<Void> {
    let loop = channel.eventLoop
    guard let multicast = channel as? MulticastChannel, let options = channel as? SocketOptionProvider,
          let group = try? SocketAddress(ipAddress: SnapService.group, port: SnapService.port) else {
        return loop.makeFailedFuture(NetError.noHost("no multicast on this system"))
    }
    let joined: EventLoopFuture<Void>
    if let interface {
        // Announce on this interface only (a game on 127.0.0.1 stays on this machine).
        var address = in_addr()
        inet_pton(AF_INET, interface, &address)
        let device = devices.first { $0.address?.ipAddress == interface }
        joined = options.setIPMulticastIF(address).flatMap {
            guard let device else { return loop.makeSucceededVoidFuture() }
            return multicast.joinGroup(group, device: device).recover { _ in }
        }
    } else {
        // Games announced on loopback only (listening on 127.0.0.1) are heard too, where lo has multicast.
        let loopback = devices.first { $0.address?.ipAddress == "127.0.0.1" }
        joined = multicast.joinGroup(group)
            .flatMapErrorThrowing { error in
                throw NetError.noHost("cannot join the mDNS group \(SnapService.group): \(error) (no network with multicast?)")
            }
            .flatMap {
                guard let loopback else { return loop.makeSucceededVoidFuture() }
                return multicast.joinGroup(group, device: loopback).recover { _ in }
            }
    }
    return joined.flatMap { options.setIPMulticastTTL(255) }
}

/// Announces one game on the local network: at once, then every `SnapService.interval`,
/// and in answer to every query for `_snap._tcp`; a goodbye (TTL 0) when stopped.
public final class LANAnnouncer: @unchecked Sendable {  // state touched on `loop` only
    private let loop: EventLoop
    private var game: LANGame
    private let addresses: [[UInt8]]
    private let interface: String?
    private let current: () -> HostInfo
    private var channel: Channel?
    private var repeating: RepeatedTask?
    private let logger: Logger
    /// Bytes sent so far (for the figures in docs/LAN.md).
    public private(set) var bytesSent = 0
    /// Answers to queries: at most `answerBurst` at once, refilled at one per `answerRefill`,
    /// so a flood of (possibly spoofed) queries cannot make the host a loudspeaker.
    private var answerTokens = LANAnnouncer.answerBurst
    static let answerBurst = 5.0
    static let answerRefill: Duration = .milliseconds(200)
    private var tokensAt = ContinuousClock.now
    /// What the last announcement said, to announce a change at once.
    private var lastInfo: HostInfo?

    /// `current` is called on `loop` before each announcement; `interface` is an IPv4
    /// address to announce through (nil: the system's multicast route).
    public init(loop: EventLoop, hostName: String, port: Int, addresses: [String], interface: String?,
                fingerprint: CertificateFingerprint? = nil, logger: Logger, current: @escaping () -> HostInfo) {
        self.loop = loop
        let machine = SnapService.machineName()
        game = LANGame(instance: SnapService.instance(hostName: hostName, machine: machine), hostName: hostName,
                       machine: machine, address: addresses.first ?? "", port: port, players: 0, maxPlayers: 4,
                       started: false, needsCode: false, fingerprint: fingerprint)
        self.addresses = addresses.compactMap { address in
            let parts = address.split(separator: ".").compactMap { UInt8($0) }
            return parts.count == 4 ? parts : nil
        }
        self.interface = interface
        self.logger = logger
        self.current = current
    }

    public func start() async throws {
        try await mdnsChannel(loop: loop, interface: interface) { [unowned self] in
            MDNSHandler { message, source in self.heard(message, from: source) }
        }.map { channel in
            self.channel = channel
            self.announce()
            self.repeating = self.loop.scheduleRepeatedTask(initialDelay: SnapService.interval, delay: SnapService.interval) {
                [weak self] _ in self?.announce()
            }
        }.get()
    }

    /// Sends the goodbye, then closes. Safe to call twice.
    public func stop() async {
        _ = try? await loop.flatSubmit { self.stopOnLoop() }.get()
    }

    /// `stop()` on the loop: the goodbye goes out, then the socket closes.
    public func stopOnLoop() -> EventLoopFuture<Void> {
        loop.preconditionInEventLoop()
        repeating?.cancel()
        repeating = nil
        guard let channel else { return loop.makeSucceededVoidFuture() }
        self.channel = nil
        return send(message(ttl: 0), on: channel, to: nil).always { _ in channel.close(promise: nil) }
    }

    private func message(ttl: UInt32) -> DNSMessage {
        let info = current()
        game.players = info.players
        game.maxPlayers = info.maxPlayers
        game.started = info.started
        game.needsCode = info.needsCode
        return SnapService.announcement(game, addresses: addresses, ttl: ttl)
    }

    private func announce() {
        guard let channel else { return }
        _ = send(message(ttl: SnapService.ttl), on: channel, to: nil)
        lastInfo = current()
    }

    /// Announces at once if what the Join list shows changed (a seat taken or freed, the
    /// start), instead of at the next tick. On the loop.
    public func refresh() {
        guard channel != nil, let lastInfo, lastInfo != current() else { return }
        announce()
    }

    private func heard(_ message: DNSMessage, from source: SocketAddress) {
        guard let channel, SnapService.asksForGames(message, instance: game.instance) else { return }
        let now = ContinuousClock.now
        answerTokens = min(Self.answerBurst, answerTokens + (now - tokensAt) / Self.answerRefill)
        tokensAt = now
        guard answerTokens >= 1 else { return }
        answerTokens -= 1
        // A one-shot querier (not on port 5353) gets a unicast answer with its id (RFC 6762 §6.7).
        if source.port != SnapService.port {
            var answer = self.message(ttl: SnapService.ttl)
            answer.id = message.id
            answer.questions = message.questions
            _ = send(answer, on: channel, to: source)
        } else {
            announce()
        }
    }

    private func send(_ message: DNSMessage, on channel: Channel, to target: SocketAddress?) -> EventLoopFuture<Void> {
        guard let destination = try? target ?? SocketAddress(ipAddress: SnapService.group, port: SnapService.port) else {
            return loop.makeSucceededVoidFuture()
        }
        let bytes = message.encoded()
        bytesSent += bytes.count
        let envelope = AddressedEnvelope(remoteAddress: destination, data: channel.allocator.buffer(bytes: bytes))
        return channel.writeAndFlush(envelope).recover { [logger] error in
            logger.debug("mDNS send failed: \(error)")
        }
    }
}

/// Listens for `_snap._tcp` announcements (asking once at the start; hosts repeat
/// theirs every second anyway), keeping each game until its records expire. `games` may be read from any thread.
public final class LANBrowser: @unchecked Sendable {  // `channel` on `loop` only; `table` behind its lock
    private let loop: EventLoop
    private var channel: Channel?
    private let table = NIOLockedValueBox(LANGameTable())
    private let origin = ContinuousClock.now

    public init(loop: EventLoop) {
        self.loop = loop
    }

    private var now: Duration { ContinuousClock.now - origin }

    public func start() async throws {
        try await mdnsChannel(loop: loop, interface: nil) { [unowned self] in
            MDNSHandler { message, source in
                self.table.withLockedValue { $0.update(message, source: source.ipAddress, now: self.now) }
            }
        }.map { channel in
            self.channel = channel
            if let group = try? SocketAddress(ipAddress: SnapService.group, port: SnapService.port) {
                let bytes = SnapService.query.encoded()
                channel.writeAndFlush(AddressedEnvelope(remoteAddress: group, data: channel.allocator.buffer(bytes: bytes)),
                                      promise: nil)
            }
        }.get()
    }

    /// The games alive now.
    public var games: [LANGame] { table.withLockedValue { $0.games(now: now) } }

    public func stop() async {
        try? await loop.submit {
            self.channel?.close(promise: nil)
            self.channel = nil
        }.get()
    }
}

/// Datagrams → DNS messages; anything that does not decode is ignored.
/// A sender past its budget (`SenderBudgets`) is not even decoded.
final class MDNSHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    private let heard: (DNSMessage, SocketAddress) -> Void
    private var budgets = SenderBudgets()
    private let origin = ContinuousClock.now

    init(_ heard: @escaping (DNSMessage, SocketAddress) -> Void) {
        self.heard = heard
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        guard budgets.allow(envelope.remoteAddress.ipAddress ?? "", at: ContinuousClock.now - origin),
              let message = try? DNSMessage.decode(Array(envelope.data.readableBytesView)) else { return }
        heard(message, envelope.remoteAddress)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // A failed send (no route for multicast) must not close the socket.
    }
}

/// The IPv4 addresses a player elsewhere can use to reach a host listening on `host`:
/// every interface's address for a wildcard (loopback last), else `host` itself.
public func reachableAddresses(listeningOn host: String) -> [String] {
    guard host == "0.0.0.0" || host == "::" else { return [host] }
    let devices = (try? System.enumerateDevices()) ?? []
    var addresses: [String] = []
    for device in devices {
        guard case .v4? = device.address, let ip = device.address?.ipAddress, !addresses.contains(ip) else { continue }
        addresses.append(ip)
    }
    return addresses.filter { !$0.hasPrefix("127.") } + addresses.filter { $0.hasPrefix("127.") }
}
