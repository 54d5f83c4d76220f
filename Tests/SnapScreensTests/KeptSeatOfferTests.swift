import SnapScreens
import Testing

/// What a window turned away from a started game offers, from the seats kept on this
/// computer and what the host says of them: an away seat is taken back, a playing one
/// only moved when asked in words.
@Suite("A reopened window's offer: the away seat, never a live one")
struct KeptSeatOfferTests {
    let table = [KeptSeatOffer.Seat(name: "Ann", away: false), KeptSeatOffer.Seat(name: "Player 2", away: false),
                 KeptSeatOffer.Seat(name: "Player 3", away: true), KeptSeatOffer.Seat(name: "Player 4", away: false)]

    @Test("the away seat kept here is offered, not the first name kept")
    func awayAmongLive() {
        #expect(KeptSeatOffer(kept: ["Player 2", "Player 3", "Player 4"], table: table) == .takeBack(["Player 3"]))
    }

    @Test("several away seats kept here are all listed, in the order the host seats them; each answer takes its own")
    func severalAway() {
        var both = table
        both[1].away = true
        let offer = KeptSeatOffer(kept: ["Player 4", "Player 3", "Player 2"], table: both)
        #expect(offer == .takeBack(["Player 2", "Player 3"]))
        let (question, answers) = offer.question(game: "Ann's game", wayOut: "Cancel")
        #expect(question.title == "Take back a seat?")
        #expect(question.kind == .choose(options: ["Player 2's seat", "Player 3's seat"], no: "Cancel"))
        #expect(answers.map(\.name) == ["Player 2", "Player 3"])
        #expect(answers.allSatisfy { $0.role == .player })
    }

    @Test("kept seats that are all playing: moved only when asked, with Watch beside")
    func onlyLive() {
        let offer = KeptSeatOffer(kept: ["Player 2"], table: table)
        #expect(offer == .move(["Player 2"]))
        let (question, answers) = offer.question(game: "Ann's game", wayOut: "Menu")
        #expect(question.title == "Move Player 2's seat here?")
        #expect(question.kind == .choose(options: ["Move the seat here", "Watch"], no: "Menu"))
        #expect(question.message.hasPrefix("Player 2 is playing in another window on this computer — move the seat here?"))
        #expect(answers.map(\.name) == ["Player 2", nil])
        #expect(answers.map(\.role) == [.player, .watcher])
    }

    @Test("names kept for seats no longer at the table (left, or another match) offer Watch; case is the host's")
    func noneAtTable() {
        var left = table
        left.remove(at: 2)  // Player 3's grace ran out
        #expect(KeptSeatOffer(kept: ["Player 3", "Zed"], table: left) == .watch)
        #expect(KeptSeatOffer(kept: ["player 3"], table: table) == .takeBack(["Player 3"]))
        #expect(KeptSeatOffer(kept: ["Player 3"], table: []) == .watch)
    }
}
