import SnapEngine
import SnapProtocol
import SnapSession
import SnapTestSupport
@testable import SnapTable
import Testing

/// The model fed the way a window feeds it: each poll's messages, applied to a
/// `ClientSession` first, then handed over with the events they carried.
@Suite("The table model fed by a window's session")
struct TableModelSessionTests {
    final class Window {
        var session = ClientSession()
        let model = TableModel()

        func poll(_ messages: [HostMessage], now: Double) {
            var batches: [ReceivedMessage] = []
            for message in messages {
                batches.append(session.receiveForWindow(message, now: .seconds(now)))
            }
            model.receive(batches, session: session, now: now)
            model.advance(to: now, play: { _ in })
        }
    }

    static let start = HostMessage.gameStarted(GameStart(
        yourSeat: .bottom, players: [SeatedPlayer(seat: .bottom, name: "Ann"), SeatedPlayer(seat: .top, name: "Ray")],
        turnLimit: nil))

    /// The first round dealt (26 cards each, the bottom seat starts) and Ann active.
    static func dealt() -> [SeatEvent] {
        var events: [SeatEvent] = [.roundStarted(round: 1, startingSeat: .bottom)]
        for index in 0..<52 { events.append(.dealt(nil, to: index % 2 == 0 ? .bottom : .top)) }
        events.append(.dealFinished)
        events.append(.activated(.bottom))
        return events
    }

    @Test("game start, the deal and whose turn: the drawn piles follow the session's table once the cards land")
    func dealsAndSettles() {
        let window = Window()
        window.poll([.welcome(Welcome(version: 3, hostName: "Ann", playerID: 1)), Self.start], now: 0)
        #expect(window.model.started)
        window.poll([.events(Self.dealt())], now: 0.1)
        #expect(window.model.isDealing)
        #expect(window.model.visual[closed: .bottom] < 26)
        window.poll([], now: 30)
        #expect(window.model.isIdle)
        #expect(window.model.visual[closed: .bottom] == 26 && window.model.visual[closed: .top] == 26)
        #expect(window.model.visual.status == "Your turn — click your pile")
        #expect(window.model.visual == TableModel.snapshot(window.session.table!, cleared: false,
                                                          status: window.model.visual.status, tone: window.model.visual.tone))
    }

    @Test("the finished deal is a reference once its last card has landed, with animations on and off",
          arguments: [true, false])
    func dealReference(animated: Bool) {
        let window = Window()
        window.model.animated = animated
        window.poll([Self.start, .events(Self.dealt())], now: 0)
        if animated {
            #expect(window.model.isDealing)
            #expect(window.model.referencesDrawn.isEmpty, "the deal is still flying")
            // Advance frame by frame, as the window does, until the deal is reported.
            var now = 0.0
            while window.model.referencesDrawn.isEmpty, now < 5 {
                now += 1.0 / 60
                window.poll([], now: now)
            }
            #expect(window.model.referencesDrawn == [Reference(round: 1, turn: 0)])
            #expect(!window.model.isDealing, "reported while a dealt card was still in the air")
            #expect(window.model.visual[closed: .bottom] == 26 && window.model.visual[closed: .top] == 26)
        } else {
            #expect(window.model.referencesDrawn == [Reference(round: 1, turn: 0)])
        }
    }

    @Test("my turn: the flip starts on the click, ends when the host turns my card; unanswered, it is put back after 2 s")
    func myTurn() {
        let window = Window()
        window.poll([Self.start, .events(Self.dealt())], now: 0)
        window.poll([], now: 30)
        window.model.requestTurn(now: 30)
        window.model.advance(to: 30.05, play: { _ in })
        #expect(window.model.hasLocalFlip)
        #expect(window.model.visual[closed: .bottom] == 25)
        window.poll([.events([.turned(.bottom, Card(.seven, .hearts))])], now: 30.1)
        #expect(window.model.turnRequestedAt == nil)
        window.poll([], now: 31)
        #expect(window.model.visual[open: .bottom] == [Card(.seven, .hearts)])

        // Ray's turn, then mine again: the host never answers this click.
        window.poll([.events([.activated(.top), .turned(.top, Card(.two, .clubs)), .activated(.bottom)])], now: 32)
        window.poll([], now: 40)
        window.model.requestTurn(now: 40)
        window.model.advance(to: 40.1, play: { _ in })
        #expect(window.model.visual[closed: .bottom] == 24)
        window.poll([], now: 41)
        #expect(window.model.turnRequestedAt != nil)
        window.poll([], now: 42.5)
        #expect(window.model.turnRequestedAt == nil)
        #expect(!window.model.hasLocalFlip)
        #expect(window.model.visual[closed: .bottom] == 25)
    }

    @Test("a snapshot (rejoined, or watching mid-game) shows the table as it stands, with nothing flying")
    func snapshot() {
        let window = Window()
        window.poll([Self.start], now: 0)
        var table = TableView(seats: [.bottom, .top])
        for event in Self.dealt() { table.apply(event) }
        table.apply(.turned(.bottom, Card(.ace, .spades)))
        window.poll([.snapshot(TableSnapshot(table: table, turnsThisRound: 1))], now: 5)
        #expect(window.model.isIdle)
        #expect(window.model.visual[open: .bottom] == [Card(.ace, .spades)])
        #expect(window.model.visual[closed: .bottom] == 25)
        #expect(window.model.visual.closed == TableModel.snapshot(table, cleared: false, status: "", tone: .normal).closed)
    }
}

/// docs/PROTOCOL.md §7 quotes how a window counts down a dropped seat's grace.
@Suite("PROTOCOL.md quotes the table")
struct TableDocumentationTests {
    @Test("a dropped seat under its name: \"Ann — reconnecting… 24 s\"")
    func reconnecting() throws {
        let name = TableModel.reconnectingName("Ann", seconds: 24)
        #expect(try Documents.quotes("PROTOCOL.md", "(windows count it down under the seat: \"\(name)\")"), "PROTOCOL.md lacks \(name)")
    }
}
