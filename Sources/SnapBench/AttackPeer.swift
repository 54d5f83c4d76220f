#if canImport(Glibc)
import Glibc
#endif
import SnapBytes
import SnapEngine
import SnapProtocol
import SnapSession

/// `snap-bench attack`: one raw, non-blocking connection to the host, honest or not.
/// Writes are queued in order (sequence numbers), reads feed a `ClientSession`.
final class AttackPeer: @unchecked Sendable {  // one thread at a time: the attacker's thread gets it and nobody else touches it
    let socket: BenchSocket
    let name: String
    private(set) var session = ClientSession()
    private var sequence = SequenceCounter()
    private var decoder = FrameDecoder()
    private var out: [UInt8] = []
    private var outStart = 0
    private var buffer = [UInt8](repeating: 0, count: 65_536)
    /// The host closed this connection (closing, EOF, a reset, or a hang-up seen by poll).
    private(set) var closed = false
    private(set) var closeReason: CloseReason?
    /// Pongs (echoing the ping's nonce) are sent by `read` when true.
    var answersPings = true

    init(_ socket: BenchSocket, name: String) {
        self.socket = socket
        self.name = name
        _ = fcntl(socket.fd, F_SETFL, fcntl(socket.fd, F_GETFL) | O_NONBLOCK)
    }

    var fd: Int32 { socket.fd }
    var pendingBytes: Int { out.count - outStart }

    func queue(_ message: ClientMessage) {
        out += WireCodec.encode(message, sequence: sequence.next())
    }

    /// Writes what it can without blocking; a write error means the host closed.
    func flush() {
        while !closed, outStart < out.count {
            let n = out.withUnsafeBufferPointer { Glibc.write(fd, $0.baseAddress! + outStart, out.count - outStart) }
            if n > 0 { outStart += n; continue }
            if n < 0, errno == EAGAIN || errno == EINTR { break }
            closed = true
        }
        if outStart == out.count { out.removeAll(keepingCapacity: true); outStart = 0 }
    }

    func send(_ message: ClientMessage) {
        queue(message)
        flush()
    }

    /// Reads what is there (without blocking) and returns the messages; pings are answered
    /// when `answersPings`; `closing` or EOF marks the peer closed.
    func read(now: Duration) -> [HostMessage] {
        guard !closed else { return [] }
        let count = buffer.withUnsafeMutableBufferPointer { Glibc.read(fd, $0.baseAddress!, $0.count) }
        if count < 0, errno == EAGAIN || errno == EINTR { return [] }
        if count <= 0 { closed = true; return [] }
        decoder.append(buffer[0..<count])
        var messages: [HostMessage] = []
        do {
            while let frame = try decoder.nextFrame() {
                let message = try WireCodec.decodeHostMessage(frame)
                session.receive(message, now: now)
                if answersPings, case .ping(let nonce) = message { queue(.pong(nonce: nonce)) }
                if case .closing(let reason, _) = message { closed = true; closeReason = reason }
                messages.append(message)
            }
        } catch {
            closed = true
        }
        flush()
        return messages
    }

    /// Whether the host hung up, seen without reading (for a client that never reads).
    func hungUp() -> Bool {
        if closed { return true }
        var poller = pollfd(fd: fd, events: Int16(POLLOUT) | Self.pollReadHangUp, revents: 0)
        if poll(&poller, 1, 0) > 0, poller.revents & (Self.pollReadHangUp | Int16(POLLHUP) | Int16(POLLERR)) != 0 {
            closed = true
        }
        return closed
    }

    /// After a hang-up: reads what is left (at most 1 s, 64 MB) for the host's `closing`.
    func closingReason() -> String? {
        if let closeReason { return "\(closeReason)" }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(1)
        var total = 0
        while clock.now < deadline, total < 64 << 20, socket.fd >= 0 {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let count = buffer.withUnsafeMutableBufferPointer { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if count <= 0 { break }
            total += count
            decoder.append(buffer[0..<count])
            while let frame = try? decoder.nextFrame() {
                if case .closing(let reason, _)? = try? WireCodec.decodeHostMessage(frame) { return "\(reason)" }
            }
        }
        return nil
    }

    /// POLLRDHUP (Linux): the peer closed or shut down its writing half.
    static let pollReadHangUp: Int16 = 0x2000

    func close() {
        socket.close()
        closed = true
    }
}

extension AttackPeer {
    /// Connects over the host's transport and says hello.
    static func join(_ host: HostProcess, transport: NetBenchmark.Transport, name: String) throws -> AttackPeer {
        let socket: BenchSocket
        switch transport {
        case .unix: socket = try BenchSocket(unixPath: host.socketPath)
        case .tcp: socket = try BenchSocket(tcpPort: host.tcpPort ?? 0)
        }
        let peer = AttackPeer(socket, name: name)
        peer.send(.hello(Hello(name: name)))
        return peer
    }

    /// Reads every ready peer once, waiting at most `milliseconds` for any.
    static func pump(_ peers: [AttackPeer], milliseconds: Int32, now: () -> Duration,
                     _ handle: (Int, HostMessage) -> Void) {
        let open = peers.indices.filter { !peers[$0].closed }
        guard !open.isEmpty else { return }
        var fds = open.map { pollfd(fd: peers[$0].fd, events: Int16(POLLIN), revents: 0) }
        guard poll(&fds, nfds_t(fds.count), milliseconds) > 0 else { return }
        for (slot, index) in open.enumerated() where fds[slot].revents != 0 {
            for message in peers[index].read(now: now()) { handle(index, message) }
        }
    }
}

extension SeatEvent {
    /// The seat whose Snap! this event judges, if it is a verdict.
    var verdictFor: Seat? {
        switch self {
        case .snapCorrect(let caller, _): return caller
        case .snapWrong(let caller): return caller
        case .snapTooLate(let seat): return seat
        default: return nil
        }
    }
}
