import SnapEngine
import SnapProtocol
import SnapSession
import Testing

/// A window can say when the current card was really shown; a Snap! then measures from there.
@Suite("ClientSession: reference shown on screen")
struct ClientSessionShownTests {
    static func started() -> ClientSession {
        var session = ClientSession()
        _ = session.receive(.welcome(Welcome(version: 1, hostName: "Ann", playerID: 1)), now: .zero)
        _ = session.receive(.gameStarted(GameStart(yourSeat: .bottom, players: [SeatedPlayer(seat: .bottom, name: "Ann"),
                                                                               SeatedPlayer(seat: .top, name: "Ray")],
                                                   turnLimit: nil)), now: .zero)
        return session
    }

    static func reaction(_ message: ClientMessage) -> UInt32? {
        if case .snap(let call) = message { return call.reactionMicros }
        return nil
    }

    @Test("the window's stamp for the current card replaces the arrival time; others are ignored")
    func stamps() {
        var session = Self.started()
        let card = Card(.seven, .hearts)
        _ = session.receive(.events([.roundStarted(round: 1, startingSeat: .top), .dealFinished, .activated(.top),
                                     .turned(.top, card)]), now: .seconds(10))
        #expect(session.seenTurns == 1)
        // Arrived at 10 s; pressed at 10.5 s: 500 ms from arrival.
        #expect(Self.reaction(session.snap(at: .milliseconds(10_500))) == 500_000)
        // Drawn and presented at 10.2 s: 300 ms from what the player saw.
        session.referenceShown(round: 1, turn: 1, at: .milliseconds(10_200))
        #expect(Self.reaction(session.snap(at: .milliseconds(10_500))) == 300_000)
        // A late report about an older card, a later one, or another round changes nothing.
        session.referenceShown(round: 1, turn: 0, at: .milliseconds(10_400))
        session.referenceShown(round: 1, turn: 2, at: .milliseconds(10_400))
        session.referenceShown(round: 2, turn: 1, at: .milliseconds(10_400))
        #expect(Self.reaction(session.snap(at: .milliseconds(10_500))) == 300_000)
    }

    @Test("before the first turn, a Snap! measures from the frame that showed the finished deal")
    func dealStamp() {
        var session = Self.started()
        _ = session.receive(.events([.roundStarted(round: 1, startingSeat: .top)]), now: .seconds(10))
        // Nothing to measure from while the deal is still arriving.
        session.referenceShown(round: 1, turn: 0, at: .milliseconds(10_100))
        #expect(session.referenceShownAt == nil)
        _ = session.receive(.events([.dealFinished, .activated(.top)]), now: .seconds(11))
        #expect(Self.reaction(session.snap(at: .milliseconds(12_000))) == 1_000_000)
        // The deal's last card landed on screen at 11.4 s.
        session.referenceShown(round: 1, turn: 0, at: .milliseconds(11_400))
        #expect(Self.reaction(session.snap(at: .milliseconds(12_000))) == 600_000)
        // The next round: round 1's late report does not touch round 2's reference.
        _ = session.receive(.events([.roundStarted(round: 2, startingSeat: .top), .dealFinished]), now: .seconds(20))
        session.referenceShown(round: 1, turn: 0, at: .milliseconds(20_500))
        #expect(Self.reaction(session.snap(at: .milliseconds(21_000))) == 1_000_000)
    }
}
