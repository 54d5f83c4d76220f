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
        session.referenceShown(turn: 1, at: .milliseconds(10_200))
        #expect(Self.reaction(session.snap(at: .milliseconds(10_500))) == 300_000)
        // A late report about an older card changes nothing.
        session.referenceShown(turn: 0, at: .milliseconds(10_400))
        session.referenceShown(turn: 2, at: .milliseconds(10_400))
        #expect(Self.reaction(session.snap(at: .milliseconds(10_500))) == 300_000)
    }
}
