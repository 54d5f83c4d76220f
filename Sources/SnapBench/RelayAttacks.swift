#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SnapPlatform
import SnapRelayClient
import SnapRelayProtocol

extension AttackBenchmark {
    /// The connection flood's least window: past the relay's handshake deadline (10 s),
    /// which closes the idle connections it holds.
    public static let relayConnectionFloodSeconds = 14.0

    /// An attack on a fresh relay process holding a room in play (one spliced pair, its
    /// host's end echoing): the pair's round trips are the row's latency, the relay's RSS and
    /// CPU its memory and CPU, the relay's first refusal of the attacker its cut.
    func runOnRelay(_ attack: Attack) -> Row {
        var row = Row(attack: attack)
        let relay: HostProcess
        do { relay = try HostProcess(relay: try snapExecutable(), arguments: []) } catch {
            row.note = "the relay did not start: \(error)"
            return row
        }
        defer { relay.stop() }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let port = relay.tcpPort ?? 0
        let trust = ServerTrust(knownHosts: KnownHosts(path: relay.directory + "/bench_known_hosts"))
        let pair: RoundTripPair
        do { pair = try RoundTripPair(port: port, trust: trust, loop: group.next()) } catch {
            row.note = "no room in play at the relay: \(error)"
            return row
        }
        defer { pair.close() }

        let clock = Self.clock
        let cpuFrom = (ticks: relay.sample() ?? 0, at: clock.now)
        let start = clock.now
        let window = attack == .relayConnectionFlood ? max(seconds, Self.relayConnectionFloodSeconds) : seconds
        let deadline = start + .milliseconds(Int(window * 1000))
        let (connections, floodLimit) = (self.connections, self.floodLimit)
        let flood: Background<AttackOutcome>? = switch attack {
        case .relayRegisterFlood:
            Background {
                Attackers.registrationFlood(port: port, trust: trust, count: min(floodLimit, 5000), start: start, deadline: deadline)
            }
        case .relayConnectionFlood:
            Background { Attackers.connectionFlood(relay, transport: .tcp, count: connections, start: start, deadline: deadline) }
        default: nil
        }
        // A round trip every 10 ms, each given at most 2 s; the relay's open files every 0.1 s.
        var lastSuccess: Double?
        var mostFiles = 0, filesAt = clock.now
        while clock.now < deadline {
            if clock.now >= filesAt {
                mostFiles = max(mostFiles, relay.openFiles ?? 0)
                filesAt = clock.now + .milliseconds(100)
            }
            let sent = clock.now
            if pair.roundTrip(timeout: .seconds(2)) {
                row.latencies.append(NetBenchmark.microseconds(clock.now - sent))
                lastSuccess = Attackers.seconds(clock.now - start)
            } else {
                row.missed += 1
            }
            usleep(10_000)
        }
        let outcome = flood?.wait() ?? AttackOutcome()
        let cpuTo = (ticks: relay.sample() ?? 0, at: clock.now)
        row.latencies.sort()
        row.peakRSSMiB = Double(relay.peakRSSKiB) / 1024
        let wall = Attackers.seconds(cpuTo.at - cpuFrom.at)
        row.cpuPercent = Double(cpuTo.ticks - cpuFrom.ticks) / HostProcess.ticksPerSecond / max(wall, 0.001) * 100
        row.hostEnded = relay.ending
        row.cutAfter = outcome.cutAfter
        row.cutReason = outcome.reason
        let windowEnd = Attackers.seconds(deadline - start)
        row.gameWentOn = row.hostEnded == nil && !pair.closed && (lastSuccess.map { $0 >= windowEnd - max(1.5, windowEnd * 0.2) } ?? false)
        row.note = outcome.note + (outcome.note.isEmpty ? "" : "; ") + "the relay held at most \(mostFiles) open files"
        if pair.closed { row.note += (row.note.isEmpty ? "" : "; ") + "the room in play was cut" }
        return row
    }
}

/// A room in play at a relay, as the attack rows time it: a host's control connection and
/// one spliced pair, the host's end echoing what the player's end sends.
final class RoundTripPair: @unchecked Sendable {  // `waiting` behind its lock; the rest set in init
    private let control: Channel
    private let player: SyntheticEnd
    private let host: NIOLockedValueBox<SyntheticEnd?>
    private let playerChannel: Channel
    /// Bytes still to come back, and who waits for them.
    private let waiting: NIOLockedValueBox<(bytes: Int, promise: EventLoopPromise<Bool>?)>
    static let size = 64

    init(port: Int, trust: ServerTrust, loop: EventLoop) throws {
        let host = NIOLockedValueBox<SyntheticEnd?>(nil)
        // The spliced one is the room's host end (the relay keeps another ahead, never spliced here).
        let (room, control) = try SyntheticRelay.register(port: port, trust: trust, loop: loop, makeEnd: {
            SyntheticEnd(echo: true)
        }, accepted: { result in
            if case .success(let end) = result { host.withLockedValue { $0 = end } }
        }).wait()
        let waiting = NIOLockedValueBox<(bytes: Int, promise: EventLoopPromise<Bool>?)>((0, nil))
        let player = SyntheticEnd(onBytes: { count in
            let done = waiting.withLockedValue { state -> EventLoopPromise<Bool>? in
                state.bytes -= count
                guard state.bytes <= 0, let promise = state.promise else { return nil }
                state.promise = nil
                return promise
            }
            done?.succeed(true)
        })
        do {
            playerChannel = try SyntheticRelay.dial(port: port, .connect(room: room), trust: trust, loop: loop, end: player).wait()
        } catch {
            control.close(promise: nil)
            throw error
        }
        (self.control, self.player, self.host, self.waiting) = (control, player, host, waiting)
    }

    var closed: Bool { player.closed || !control.isActive }

    /// Sends 64 bytes and waits (this thread, never a loop's) for them to come back;
    /// false when they did not within `timeout`.
    func roundTrip(timeout: TimeAmount) -> Bool {
        guard !closed else { return false }
        let channel = playerChannel
        let promise = channel.eventLoop.makePromise(of: Bool.self)
        waiting.withLockedValue { $0 = (Self.size, promise) }
        channel.writeAndFlush(channel.allocator.buffer(repeating: 0x5A, count: Self.size), promise: nil)
        let late = channel.eventLoop.scheduleTask(in: timeout) { promise.succeed(false) }
        let back = (try? promise.futureResult.wait()) ?? false
        late.cancel()
        if !back { waiting.withLockedValue { $0 = (0, nil) } }  // a late echo is not counted for the next
        return back
    }

    func close() {
        player.close()
        host.withLockedValue { $0?.close() }
        control.close(promise: nil)
    }
}

extension Attackers {
    /// `register` at the relay as fast as it answers, 16 in flight, up to `count` or until
    /// `deadline`; the rooms granted are held until then. The note tallies the relay's
    /// answers; the cut is its first refusal.
    static func registrationFlood(port: Int, trust: ServerTrust, count: Int, start: ContinuousClock.Instant,
                                  deadline: ContinuousClock.Instant) -> AttackOutcome {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        var tally: [String: Int] = [:]
        var held: [Channel] = []
        var outcome = AttackOutcome()
        while outcome.sent < count, clock.now < deadline {
            let wave = (0..<min(16, count - outcome.sent)).map { _ in
                SyntheticRelay.register(port: port, trust: trust, loop: group.next(), makeEnd: { SyntheticEnd() })
            }
            outcome.sent += wave.count
            for attempt in wave {
                do {
                    held.append(try attempt.wait().1)
                    tally["rooms granted", default: 0] += 1
                } catch let refused as RelayRefused {
                    outcome.cutAfter = outcome.cutAfter ?? seconds(clock.now - start)
                    tally[refused.code.map { "error " + $0.rawValue } ?? (refused.closed ? "closed" : "not the protocol"), default: 0] += 1
                } catch let error as NetError {
                    outcome.cutAfter = outcome.cutAfter ?? seconds(clock.now - start)
                    tally["refused at connect (\(error))".prefix(80).description, default: 0] += 1
                } catch {
                    tally["failed (\(error))".prefix(80).description, default: 0] += 1
                }
            }
        }
        outcome.sending = seconds(clock.now - start)
        while clock.now < deadline { usleep(10_000) }
        for channel in held { channel.close(promise: nil) }
        outcome.note = "\(outcome.sent) registrations in \(twoDecimals(outcome.sending)) s: "
            + tally.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        return outcome
    }
}
