#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import SnapBytes
import SnapEngine
import SnapNet
import SnapPlatform
import SnapProtocol

/// What one attacker saw: when the host cut it (seconds from the attack's start), what it sent.
struct AttackOutcome {
    var cutAfter: Double?
    var sent = 0
    /// Seconds from the attack's start to the last message of the flood, and how many it sent.
    var sending = 0.0
    var flooded = 0
    /// What the host's `closing` said, if the attacker saw one.
    var reason: String?
    var note = ""
}

/// The attackers of `snap-bench attack`. Every loop is bounded by a message count and a
/// deadline, and talks only to the host this bench started on this machine.
enum Attackers {
    static let clock = ContinuousClock()
    /// The time base of every `ClientSession` in the bench.
    static let origin = ContinuousClock.now

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Sends `make(i)` as fast as the socket takes it (or one every `interval`), up to
    /// `limit` messages, until `deadline` or until the host cuts the connection. A peer
    /// that `reads` drains and decodes what arrives (answering pings if it is told to);
    /// one that does not only watches for the hang-up. With `turns`, it turns its card
    /// when activated, like an honest player.
    static func flood(_ peer: AttackPeer, start: ContinuousClock.Instant, deadline: ContinuousClock.Instant,
                      limit: Int, reads: Bool, interval: Duration? = nil, turns: Bool = false,
                      make: (Int) -> ClientMessage) -> AttackOutcome {
        var outcome = AttackOutcome()
        var nextSend = clock.now
        while clock.now < deadline {
            if reads {
                for message in peer.read(now: clock.now - origin) {
                    guard turns, case .events(let events) = message, let seat = peer.session.seat else { continue }
                    if events.contains(.activated(seat)) { peer.queue(.turn) }
                }
                peer.flush()
            }
            if peer.closed || peer.hungUp() {
                outcome.cutAfter = seconds(clock.now - start)
                outcome.reason = peer.closingReason()
                break
            }
            // Past `limit`, a flood trickles on (one message every 0.1 s) so that it is never
            // silent: a cut then comes from the host's rules, not from a quiet connection.
            let flooding = outcome.sent < limit
            if limit > 0, peer.pendingBytes < 65_536, clock.now >= nextSend {
                let batch = interval == nil && flooding ? min(64, limit - outcome.sent) : 1
                for _ in 0..<batch { peer.queue(make(outcome.sent)); outcome.sent += 1 }
                peer.flush()
                if flooding {
                    outcome.sending = seconds(clock.now - start)
                    outcome.flooded = outcome.sent
                }
                if let interval { nextSend = clock.now + interval } else if !flooding { nextSend = clock.now + .milliseconds(100) }
                continue
            }
            var events = AttackPeer.pollReadHangUp
            if reads { events |= Int16(POLLIN) }
            if peer.pendingBytes > 0 { events |= Int16(POLLOUT) }
            var poller = pollfd(fd: peer.fd, events: events, revents: 0)
            _ = poll(&poller, 1, 5)
            peer.flush()
        }
        peer.close()
        return outcome
    }

    static func madeUpNonce() -> UInt64 { UInt64.random(in: (1 << 48)...UInt64.max) }

    /// Connect, hello (a new valid name each time), wait for the answer, close: `count` times.
    static func churn(_ host: HostProcess, transport: NetBenchmark.Transport, count: Int,
                      deadline: ContinuousClock.Instant) -> (welcomed: Int, refused: Int, hungUp: Int, failed: String?) {
        var welcomed = 0, refused = 0, hungUp = 0
        for index in 0..<count {
            guard clock.now < deadline else { return (welcomed, refused, hungUp, "stopped at the time bound after \(index)") }
            let peer: AttackPeer
            do { peer = try AttackPeer.join(host, transport: transport, name: "Churn\(index)") } catch {
                return (welcomed, refused, hungUp, "sign-in \(index + 1) could not connect")
            }
            let answerBy = clock.now + .seconds(1)
            var answered = false
            while !answered, clock.now < answerBy {
                AttackPeer.pump([peer], milliseconds: 20, now: { clock.now - origin }) { _, message in
                    if case .welcome = message { answered = true; welcomed += 1 }
                }
                if peer.closed, !answered {
                    answered = true
                    if peer.closeReason != nil { refused += 1 } else { hungUp += 1 }
                }
            }
            peer.close()
            if !answered { return (welcomed, refused, hungUp, "sign-in \(index + 1) got no answer within 1 s") }
        }
        return (welcomed, refused, hungUp, nil)
    }

    /// Opens up to `count` idle connections (no hello), then watches them until `deadline`:
    /// how many the host held, how many it closed (and how fast), how many never connected.
    /// `firstBytes`: written on each connection once it is up (the start of a TLS
    /// handshake, for the stalled-handshake flood).
    static func connectionFlood(_ host: HostProcess, transport: NetBenchmark.Transport, count: Int,
                                start: ContinuousClock.Instant, deadline: ContinuousClock.Instant,
                                firstBytes: [UInt8] = []) -> AttackOutcome {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let saved = limit
        limit.rlim_cur = min(limit.rlim_max, rlim_t(count + 256))
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        defer { var back = saved; setrlimit(Int32(RLIMIT_NOFILE.rawValue), &back) }

        var fds: [Int32] = []
        var openedAt: [ContinuousClock.Instant] = []
        var closedAt: [ContinuousClock.Instant?] = []
        var reasons: [String: Int] = [:]
        var connectErrors = 0
        var firstError: Int32 = 0
        for _ in 0..<count {
            guard clock.now < deadline else { break }
            let fd = socket(transport == .unix ? AF_UNIX : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { connectErrors += 1; firstError = errno; break }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            let result: Int32
            switch transport {
            case .unix:
                var address = BenchSocket.unixAddress(host.socketPath)
                result = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
                }
            case .tcp:
                var address = BenchSocket.loopback(port: UInt16(host.tcpPort ?? 0))
                result = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
            }
            if result != 0, errno != EINPROGRESS {
                if firstError == 0 { firstError = errno }
                connectErrors += 1
                Glibc.close(fd)
                usleep(1000)  // a full backlog: give the host a moment
                continue
            }
            if !firstBytes.isEmpty {
                var writable = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&writable, 1, 100)
                _ = firstBytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            }
            fds.append(fd)
            openedAt.append(clock.now)
            closedAt.append(nil)
        }
        let openedIn = seconds(clock.now - start)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while clock.now < deadline, closedAt.contains(where: { $0 == nil }) {
            var pollers = fds.indices.filter { closedAt[$0] == nil }.map {
                pollfd(fd: fds[$0], events: Int16(POLLIN) | AttackPeer.pollReadHangUp, revents: 0)
            }
            guard poll(&pollers, nfds_t(pollers.count), 50) > 0 else { continue }
            for poller in pollers where poller.revents != 0 {
                let index = fds.firstIndex(of: poller.fd)!
                let n = read(poller.fd, &buffer, buffer.count)
                if n < 0, errno == EAGAIN { continue }
                if n > 0, let messages = try? hostMessages(Array(buffer[0..<n])) {
                    for case .closing(let reason, _) in messages { reasons["\(reason)", default: 0] += 1 }
                }
                if n > 0, poller.revents & (AttackPeer.pollReadHangUp | Int16(POLLHUP)) == 0 { continue }
                closedAt[index] = clock.now
            }
        }
        for fd in fds { Glibc.close(fd) }
        let closed = closedAt.compactMap { $0 }
        let quick = zip(openedAt, closedAt).filter { opened, closed in closed.map { $0 - opened < .seconds(1) } ?? false }.count
        var outcome = AttackOutcome(sent: fds.count)
        if !fds.isEmpty, closed.count == fds.count, let last = closed.max() { outcome.cutAfter = seconds(last - start) }
        outcome.note = "\(fds.count) opened in \(twoDecimals(openedIn)) s: \(fds.count - closed.count) held, "
            + "\(quick) closed within 1 s, \(closed.count - quick) later"
            + (reasons.isEmpty ? "" : " (closing: " + reasons.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ") + ")")
            + (connectErrors > 0 ? "; \(connectErrors) connects failed (errno \(firstError))" : "")
        return outcome
    }

    /// Complete TLS handshakes against the host's TCP port, one after another until
    /// `deadline`, each closed at once: what the handshakes cost the host.
    static func handshakeFlood(_ host: HostProcess, deadline: ContinuousClock.Instant) -> AttackOutcome {
        let started = clock.now
        var trust = ServerTrust(knownHosts: KnownHosts(path: host.directory + "/attacker_known_hosts"))
        trust.onFirstUse = nil
        var done = 0, failed = 0
        var firstFailure: String?
        while clock.now < deadline, done + failed < 100_000 {
            do {
                try BlockingStream(endpoint: .tcp(host: "127.0.0.1", port: host.tcpPort ?? 0), trust: trust).close()
                done += 1
            } catch {
                failed += 1
                if firstFailure == nil { firstFailure = "\(error)" }
            }
        }
        let took = max(seconds(clock.now - started), 0.001)
        var outcome = AttackOutcome(sent: done)
        outcome.note = "\(done) handshakes completed in \(twoDecimals(took)) s (\(Int(Double(done) / took))/s)"
            + (failed > 0 ? ", \(failed) failed (\(firstFailure ?? ""))" : "")
        return outcome
    }

    static func hostMessages(_ bytes: [UInt8]) throws -> [HostMessage] {
        var decoder = FrameDecoder()
        decoder.append(bytes)
        var messages: [HostMessage] = []
        while let frame = try decoder.nextFrame() { messages.append(try WireCodec.decodeHostMessage(frame)) }
        return messages
    }
}

func twoDecimals(_ value: Double) -> String {
    let hundredths = Int((value * 100).rounded())
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}

/// A result computed on its own thread.
final class Background<T: Sendable>: @unchecked Sendable {  // `value` is written once, before `done` is signalled, and read after
    private var value: T?
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () -> T) {
        let thread = Thread { [self] in
            value = body()
            done.signal()
        }
        thread.start()
    }

    func wait() -> T {
        done.wait()
        return value!
    }
}
