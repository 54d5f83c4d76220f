import SnapEngine
import SnapProtocol
import Testing
@testable import SnapSession

/// Liveness alone: pings and their echoes, round trips, silence and the sign-in timeout,
/// grace periods, on a clock the test moves.
@Suite("Liveness: pings, silence and grace periods")
struct LivenessTests {
    static func liveness() -> Liveness {
        var configuration = HostConfiguration(hostName: "Host")
        configuration.nonceSeed = 7
        configuration.grace = .seconds(30)
        return Liveness(configuration)
    }

    static func nonce(_ action: HostAction?) -> UInt64? {
        if case .send(_, .ping(let nonce)) = action { nonce } else { nil }
    }

    @Test("the first connection starts the ping rounds; a sign-in pings a remote connection at once, never the host's own")
    func signIn() {
        var liveness = Self.liveness()
        #expect(liveness.nextDeadline == nil)
        liveness.connected(ConnectionID(1), local: true, now: .seconds(2))
        #expect(liveness.nextPing == .seconds(3))
        liveness.connected(ConnectionID(2), local: false, now: .seconds(2.5))
        #expect(liveness.nextPing == .seconds(3))  // one timer for all
        #expect(liveness.signedIn(ConnectionID(1), now: .seconds(2.5)) == nil)
        #expect(Self.nonce(liveness.signedIn(ConnectionID(2), now: .seconds(2.5))) != nil)
    }

    @Test("only the echo of a nonce we sent counts: it gives a round trip; the slowest of the last 8 is the link's")
    func pongs() {
        var liveness = Self.liveness()
        let ann = ConnectionID(1)
        liveness.connected(ann, local: false, now: .zero)
        #expect(liveness.roundTrip(of: ann) == .milliseconds(5))  // no sample yet
        #expect(liveness.roundTrip(of: nil) == .zero)
        liveness.pong(42, from: ann, now: .seconds(1))
        #expect(liveness.pulses[ann]?.lastHeard == .zero)  // a made-up nonce is no sign of life
        for (index, millis) in [30, 90, 10, 10, 10, 10, 10, 10, 10].enumerated() {
            let sent = Duration.seconds(index + 1)
            let nonce = Self.nonce(liveness.ping(ann, now: sent))!
            liveness.pong(nonce, from: ann, now: sent + .milliseconds(millis))
            liveness.pong(nonce, from: ann, now: sent + .seconds(2))  // an echo counts once
        }
        #expect(liveness.pulses[ann]?.roundTrips.count == 8)
        #expect(liveness.roundTrip(of: ann) == .milliseconds(90))  // the 30 ms one has gone
        #expect(liveness.pulses[ann]?.lastHeard == .seconds(9) + .milliseconds(10))
        var local = Self.liveness()
        local.connected(ann, local: true, now: .zero)
        #expect(local.roundTrip(of: ann) == .zero)
    }

    @Test("the ping round: remote connections by id, pinged, or cut for no hello in 5 s or no answer for 5 s")
    func checks() {
        var liveness = Self.liveness()
        for raw in 1...4 { liveness.connected(ConnectionID(UInt64(raw)), local: raw == 4, now: .zero) }
        _ = liveness.signedIn(ConnectionID(2), now: .seconds(1))
        _ = liveness.signedIn(ConnectionID(3), now: .seconds(3))
        let signedIn: (ConnectionID) -> Bool = { $0.raw != 1 }
        #expect(liveness.checks(now: .seconds(4), isSignedIn: signedIn) == [.ping(ConnectionID(2)), .ping(ConnectionID(3))])
        #expect(liveness.checks(now: .seconds(6), isSignedIn: signedIn) == [
            .cut(ConnectionID(1), "no hello within 5 s"),
            .cut(ConnectionID(2), "no answer to pings for 5 s"),
            .ping(ConnectionID(3)),
        ])
        var due: [HostTimer] = []
        liveness.due(at: .seconds(1), into: &due)
        #expect(due == [.ping])
        liveness.pingTimerFired()
        liveness.schedulePings(now: .seconds(1))
        #expect(liveness.nextPing == .seconds(2))
        liveness.stop()
        liveness.schedulePings(now: .seconds(2))
        #expect(liveness.nextPing == nil && liveness.pulses.isEmpty)  // nobody left to ping
    }

    @Test("a dropped seat's grace period: due when it ends, gone when the player is back")
    func grace() {
        var liveness = Self.liveness()
        #expect(liveness.awayText == "away (grace 30 s)")
        liveness.startGrace(for: .top, now: .seconds(10))
        liveness.startGrace(for: .left, now: .seconds(12))
        #expect(liveness.nextDeadline == .seconds(40))
        var due: [HostTimer] = []
        liveness.due(at: .seconds(41), into: &due)
        #expect(due == [.grace(.top)])
        liveness.endGrace(for: .top)
        #expect(liveness.nextDeadline == .seconds(42))
        var half = HostConfiguration(hostName: "Host")
        half.grace = .milliseconds(1500)
        #expect(Liveness(half).awayText == "away (grace 1.5 s)")
    }

    @Test("timers due together fire in the host's fixed order; grace periods by seat name")
    func timerOrder() {
        let timers: [HostTimer] = [.turnTimeout, .ping, .grace(.top), .judge, .nextRound, .grace(.right), .finishDeal,
                                   .activateNext, .grace(.bottom), .grace(.left)]
        #expect(timers.sorted() == [.activateNext, .finishDeal, .grace(.bottom), .grace(.left), .grace(.right), .grace(.top),
                                    .judge, .nextRound, .ping, .turnTimeout])
        #expect(timers.sorted().map { "\($0)" } == timers.map { "\($0)" }.sorted())
    }
}
