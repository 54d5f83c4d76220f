#if GUI
import SnapEngine
import SnapNet
import SnapProtocol
import SnapTable
import Testing
@testable import SnapUI

/// What a window turned away from a started game offers, from the seats kept on this
/// computer and what the host says of them: an away seat is taken back, a playing one
/// only moved when asked in words.
@Suite("A reopened window's offer: the away seat, never a live one")
struct KeptSeatOfferTests {
    let table = [SeatAtTable(seat: .bottom, name: "Ann", away: false),
                 SeatAtTable(seat: .left, name: "Player 2", away: false),
                 SeatAtTable(seat: .top, name: "Player 3", away: true),
                 SeatAtTable(seat: .right, name: "Player 4", away: false)]

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
        let (dialog, answers) = offer.dialog(game: "Ann's game", wayOut: "Cancel")
        #expect(dialog.title == "Take back a seat?")
        #expect(dialog.options.map(\.label) == ["Player 2's seat", "Player 3's seat"])
        #expect(dialog.no?.label == "Cancel")
        #expect(answers.map(\.name) == ["Player 2", "Player 3"])
        #expect(answers.allSatisfy { $0.role == .player })
    }

    @Test("kept seats that are all playing: moved only when asked, with Watch beside")
    func onlyLive() {
        let offer = KeptSeatOffer(kept: ["Player 2"], table: table)
        #expect(offer == .move(["Player 2"]))
        let (dialog, answers) = offer.dialog(game: "Ann's game", wayOut: "Menu")
        #expect(dialog.title == "Move Player 2's seat here?")
        #expect(dialog.message.hasPrefix("Player 2 is playing in another window on this computer — move the seat here?"))
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

    @Test("a choose dialog: a click on an option picks it, Enter the first, Esc the way out, a click off them nothing")
    func chooseDialog() {
        var dialog = Dialog.choose("Take back a seat?", "Which?", options: ["A", "B", "C"], no: "Cancel")
        let second = dialog.options[1].frame.center
        #expect(dialog.handle(.press(second)) == nil)
        #expect(dialog.handle(.release(second)) == .option(1))
        #expect(dialog.handle(.press(dialog.options[0].frame.center)) == nil)
        #expect(dialog.handle(.release(dialog.options[2].frame.center)) == nil)
        #expect(dialog.handle(.key(.enter)) == .option(0))
        #expect(dialog.handle(.key(.escape)) == .no)
        let way = dialog.no!.frame.center
        #expect(dialog.handle(.press(way)) == nil)
        #expect(dialog.handle(.release(way)) == .no)
        // The buttons are stacked inside the box, none over another.
        let frames = dialog.options.map(\.frame) + [dialog.no!.frame]
        for (index, frame) in frames.enumerated() {
            #expect(dialog.frame.contains(Point(frame.x, frame.y)) && dialog.frame.contains(Point(frame.x + frame.width, frame.y + frame.height)))
            for other in frames[(index + 1)...] { #expect(frame.y + frame.height <= other.y) }
        }
    }
}
#endif
