import SnapScreens
import SnapTestSupport
import StoryEngine
import StoryProtocol
import Testing

/// "The dragon" between Ann and Bob, `current` writing, due `secondsLeft` from now.
private func dragon(current: Int?, participants: [StoryParticipant] = [StoryParticipant(name: "Ann"), StoryParticipant(name: "Bob")],
                    rematch: StoryMatchID? = nil) -> StoryMatch {
    StoryMatch(id: StoryMatchID(1), title: "The dragon", participants: participants, places: participants.count, current: current,
               text: "Once upon a time", createdAt: 1_700_000_000, turnsTaken: 1, turnSeconds: 5 * 3600, rematch: rematch)
}

/// docs/STORY.md quotes what the Story window says: its list's groups, the match view's
/// status line, the notice, a declined participant's label and the buttons. Here the
/// model's own functions make them for the matches the document's examples imply, and the
/// document must hold them. Runs of white space compare as one space.
@Suite("STORY.md quotes the Story window")
struct StoryWindowDocumentationTests {
    func expectQuoted(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try Documents.quotes("STORY.md", text), "STORY.md lacks: \(text)", sourceLocation: sourceLocation)
    }

    @Test("the list's groups: Your turn, Their turn and Ended")
    func groups() throws {
        let labels = StoryModel.groups([], for: "Ann").map(\.label)
        #expect(labels.count == 3)
        try expectQuoted("the list is split into **\(labels[0])**, **\(labels[1])** and **\(labels[2])**")
    }

    @Test("the match view's status: \"Waiting for Bob\", \"Your turn: 4 h 59 min left\", \"Waiting for Bob: Bob has 2 d left\"")
    func status() throws {
        let bobs = dragon(current: 1)
        try expectQuoted("on someone else's it says \"\(StoryModel.status(of: bobs, for: "Ann", secondsLeft: nil))\"")
        // Ann's 5 h turn a minute in; Bob with two days left.
        let yours = StoryModel.status(of: dragon(current: 0), for: "Ann", secondsLeft: 5 * 3600 - 60)
        let waiting = StoryModel.status(of: bobs, for: "Ann", secondsLeft: 2 * 86_400)
        try expectQuoted("the match view show the time left for the turn (\"\(yours)\", \"\(waiting)\") and who missed a turn")
        let missed = dragon(current: 0, participants: [StoryParticipant(name: "Ann"), StoryParticipant(name: "Bob", wrote: true, missed: 1)])
        #expect(StoryModel.status(of: missed, for: "Ann", secondsLeft: nil).hasSuffix("Bob missed a turn"))
    }

    @Test("another match becoming yours: \"Your turn in 'The dragon'\", a long title cut")
    func notice() throws {
        let notice = StoryModel.notice(dragon(current: 0))
        let long = dragon(current: 0)
        var longer = long
        longer.title = String(repeating: "d", count: StoryModel.noticeHeadingLength + 1)
        #expect(StoryModel.notice(longer) == "Your turn in '\(String(repeating: "d", count: StoryModel.noticeHeadingLength - 1))…'")
        var fits = long
        fits.title = String(repeating: "d", count: StoryModel.noticeHeadingLength)
        #expect(StoryModel.notice(fits) == "Your turn in '\(fits.title)'")
        try expectQuoted("a notice says so (\"\(notice)\"; a title past \(StoryModel.noticeHeadingLength) characters is cut with \"…\")")
    }

    @Test("who declined: \"Bob (declined)\"")
    func declined() throws {
        let label = StoryModel.label(StoryParticipant(name: "Bob", quit: true, declined: true))
        try expectQuoted("The others see who declined (\"\(label)\")")
    }

    @Test("the buttons the document names: End Turn, Automatch, New Match, Decline, Rematch, Open Rematch")
    func buttons() throws {
        typealias Action = StoryModel.Action
        try expectQuoted("press \(Action.endTurn.title) (or Enter)")
        try expectQuoted("\(Action.automatch.title) and \(Action.invite.title) (with names to invite) are under the list")
        try expectQuoted("`snapcards story decline ID`, or \(Action.decline.title) in the window")
        let ended = dragon(current: nil), rematched = dragon(current: nil, rematch: StoryMatchID(2))
        try expectQuoted("the view offers **\(Action.decline.title)** where \(Action.quit.title) would be; an ended match offers "
                         + "**\(StoryModel.rematchTitle(ended))**, which opens the new match (\(StoryModel.rematchTitle(rematched)) once there is one)")
    }
}

/// The Story window's rules, without a window or a service: replies and the connection's
/// state go in as intents, requests for the service come out as effects.
@Suite("The Story window's model")
struct StoryModelTests {
    static let clock: UInt64 = 1_700_000_000

    /// A match `id` for Ann and Bob, `current` writing, `wrote`: whether Ann has written.
    func match(_ id: UInt32, current: Int?, title: String = "The dragon", annWrote: Bool = true, turnSeconds: UInt64 = 0,
               dueAt: UInt64? = nil, lastTurnAt: UInt64? = nil) -> StoryMatch {
        StoryMatch(id: StoryMatchID(id), title: title,
                   participants: [StoryParticipant(name: "Ann", wrote: annWrote), StoryParticipant(name: "Bob", wrote: true)],
                   places: 2, current: current, text: "Once upon a time", createdAt: Self.clock - 100, lastTurnAt: lastTurnAt,
                   turnsTaken: 1, turnSeconds: turnSeconds, dueAt: dueAt)
    }

    /// Ann's window, signed in, with `matches` listed.
    func signedIn(_ matches: [StoryMatch], open: StoryMatchID? = nil) -> StoryModel {
        var model = StoryModel(name: "Ann", open: open, now: 0, wallClock: Self.clock)
        _ = model.handle(.connection(.connected(again: false)), now: 0)
        for match in matches { _ = model.handle(.reply(.match(match)), now: 0) }
        _ = model.handle(.reply(.listed(count: UInt32(matches.count))), now: 0)
        return model
    }

    func type(_ text: String, into model: inout StoryModel) {
        _ = model.handle(.edit(.type(text)), now: 1)
    }

    @Test("the list: matches grouped Your turn / Their turn / Ended, latest first; its status line counts them")
    func list() {
        var model = StoryModel(name: "Ann", now: 0, wallClock: Self.clock)
        #expect(model.update(now: 0, wallClock: Self.clock).isEmpty, "nothing listed yet: no line")
        model = signedIn([match(1, current: 1, lastTurnAt: Self.clock - 50), match(2, current: 0, lastTurnAt: Self.clock - 10),
                          match(3, current: nil), match(4, current: 0, lastTurnAt: Self.clock - 20)])
        #expect(model.page == .list)
        let groups = StoryModel.groups(model.mine, for: "Ann")
        #expect(groups.map(\.label) == ["Your turn", "Their turn", "Ended"])
        #expect(groups.map { $0.matches.map(\.id.value) } == [[2, 4], [1], [3]])
        #expect(model.update(now: 1, wallClock: Self.clock) == [.status("list: 2 your turn, 1 their turn, 1 ended")])
        #expect(model.update(now: 2, wallClock: Self.clock).isEmpty, "the same line is said once")
        #expect(model.footer == "Click a match to read it     Esc  back")
        #expect(model.rowStatus(of: model.matches[StoryMatchID(1)]!) == "Bob's turn")
        #expect(model.ago(model.matches[StoryMatchID(1)]!) == "just now")
        #expect(StoryModel.ago(nil, at: Self.clock) == "no turn yet")
        #expect(StoryModel.ago(Self.clock - 59, at: Self.clock) == "just now")
        #expect(StoryModel.ago(Self.clock - 300, at: Self.clock) == "5 min ago")
        #expect(StoryModel.ago(Self.clock - 2 * 3600, at: Self.clock) == "2 h ago")
        #expect(StoryModel.ago(Self.clock - 3 * 86_400, at: Self.clock) == "3 d ago")
    }

    @Test("the match view: opened from the list, its status line with the time left from the wall clock passed in, Back to the list, Back again to the menu")
    func matchView() {
        let due = Self.clock + 5 * 3600
        var model = signedIn([match(1, current: 0, turnSeconds: 5 * 3600, dueAt: due)])
        #expect(model.handle(.choose(.listMatch(StoryMatchID(1))), now: 1).isEmpty)
        #expect(model.viewing == StoryMatchID(1) && model.turn.isFocused && model.isMyTurn)
        #expect(model.title == "Story — The dragon")
        #expect(model.update(now: 1, wallClock: Self.clock + 30) == [.status("match 1, 1 turns: Your turn: 4 h 59 min left")])
        #expect(model.update(now: 2, wallClock: Self.clock + 60).isEmpty, "the same minute left")
        #expect(model.update(now: 3, wallClock: Self.clock + 61) == [.status("match 1, 1 turns: Your turn: 4 h 58 min left")])
        #expect(model.rowStatus(of: model.viewed!) == "your turn · 4 h 58 min left")
        #expect(model.footer == "Enter  end turn     Esc  back to the list")
        #expect(model.handle(.escape, now: 4).isEmpty)
        #expect(model.viewing == nil && model.page == .list)
        #expect(model.handle(.choose(.back), now: 5) == [.screen(.show(.menu))])
    }

    @Test("End Turn: the text goes as a turn and the field empties; refused, the text comes back with an alert; taken, it is gone")
    func endTurn() {
        var model = signedIn([match(1, current: 0)], open: StoryMatchID(1))
        #expect(!model.canEndTurn, "nothing written")
        #expect(model.handle(.enter, now: 1).isEmpty)
        type("The dragon woke.", into: &model)
        #expect(model.charactersLeft == StoryRules.maxTurnScalars - 16)
        #expect(model.canEndTurn)
        #expect(model.handle(.enter, now: 2) == [.send(.turn(StoryMatchID(1), text: "The dragon woke."))])
        #expect(model.turn.text.isEmpty && model.sentText == "The dragon woke.")
        type("And", into: &model)
        #expect(!model.canEndTurn, "a turn waits for its answer: End Turn waits too")
        #expect(model.handle(.enter, now: 2.5).isEmpty && model.handle(.choose(.endTurn), now: 2.5).isEmpty,
                "a second turn is not sent while the first waits")
        #expect(model.sentText == "The dragon woke.", "the text kept for a refusal is the first turn's")
        #expect(model.handle(.reply(.refused(.notYourTurn, "It is Bob's turn.")), now: 3) == [.status("refused: It is Bob's turn.")])
        #expect(model.turn.text == "The dragon woke." && model.sentText == nil)
        #expect(model.alert == Alert("Not taken", "It is Bob's turn."))
        #expect(model.handle(.choose(.endTurn), now: 4).isEmpty, "the alert takes input first")
        _ = model.handle(.dismissAlert, now: 5)
        #expect(model.handle(.choose(.endTurn), now: 6) == [.send(.turn(StoryMatchID(1), text: "The dragon woke."))])
        var taken = match(1, current: 1)
        taken.turnsTaken = 2
        #expect(model.handle(.reply(.match(taken)), now: 7).isEmpty)
        #expect(model.sentText == nil && !model.isMyTurn && model.page == .match(taken))
        #expect(model.footer == "Esc  back to the list")
        type("More", into: &model)
        #expect(model.turn.text.isEmpty, "not one's turn: the field takes nothing")
    }

    @Test("a turn sent as the connection went is back in the field once signed in again")
    func turnLostWithTheConnection() {
        var model = signedIn([match(1, current: 0)], open: StoryMatchID(1))
        type("Sent as it went.", into: &model)
        _ = model.handle(.enter, now: 1)
        #expect(model.handle(.connection(.retrying("The story service went away (EOF); signing in again in 1 s.")), now: 2)
            == [.status("connection: The story service went away (EOF); signing in again in 1 s.")])
        #expect(model.showsAwayBand && model.page == .match(match(1, current: 0)))
        #expect(model.handle(.connection(.connected(again: true)), now: 3) == [.status("connection: signed in again")])
        #expect(model.turn.text == "Sent as it went." && model.sentText == nil && !model.showsAwayBand)
    }

    @Test("New Match: the names typed, split at commas and trimmed, go to the service; none, an alert asks whom")
    func newMatch() {
        var model = signedIn([])
        #expect(model.handle(.enter, now: 1).isEmpty, "Enter outside the field")
        _ = model.handle(.press(inTurnField: false, inInviteField: true), now: 1)
        #expect(model.invite.isFocused)
        type(" , ", into: &model)
        #expect(model.handle(.enter, now: 2).isEmpty)
        #expect(model.alert == Alert("Whom to invite?", "Type the other players' names, separated by commas."))
        #expect(model.handle(.escape, now: 3).isEmpty && model.alert != nil, "Esc goes to the alert")
        _ = model.handle(.dismissAlert, now: 4)
        _ = model.handle(.edit(.selectAll), now: 4)
        type(" Bob ,\tCy,,", into: &model)
        #expect(model.handle(.choose(.invite), now: 5) == [.send(.create(others: ["Bob", "Cy"], title: ""))])
        #expect(model.invite.text.isEmpty)
        #expect(model.handle(.choose(.automatch), now: 6) == [.send(.automatch)])
        _ = model.handle(.edit(.type("Dee")), now: 7)
        _ = model.handle(.edit(.selectAll), now: 7)
        #expect(model.handle(.edit(.copy), now: 7) == [.screen(.copyToClipboard("Dee"))])
        _ = model.handle(.press(inTurnField: false, inInviteField: false), now: 8)
        #expect(!model.invite.isFocused)
    }

    @Test("Quit, or Decline before one's first turn; an ended match offers Rematch, whose answer is opened (Open Rematch after)")
    func leaveAndRematch() {
        var model = signedIn([match(1, current: 1), match(2, current: 1, annWrote: false), match(3, current: nil)], open: StoryMatchID(1))
        #expect(model.leaveAction == .quit && !model.offersRematch)
        #expect(model.handle(.choose(.quit), now: 1) == [.send(.quit(StoryMatchID(1)))])
        _ = model.handle(.choose(.back), now: 2)
        _ = model.handle(.choose(.listMatch(StoryMatchID(2))), now: 2)
        #expect(model.leaveAction == .decline)
        #expect(model.handle(.choose(.decline), now: 3) == [.send(.decline(StoryMatchID(2)))])
        _ = model.handle(.choose(.back), now: 4)
        _ = model.handle(.choose(.listMatch(StoryMatchID(3))), now: 4)
        #expect(model.leaveAction == nil && model.offersRematch && model.isRematchEnabled)
        #expect(StoryModel.rematchTitle(model.viewed!) == "Rematch")
        #expect(model.handle(.choose(.rematch), now: 5) == [.send(.rematch(StoryMatchID(3)))])
        #expect(!model.isRematchEnabled)
        let rematch = match(4, current: 1)
        _ = model.handle(.reply(.match(rematch)), now: 6)
        #expect(model.viewing == StoryMatchID(4) && model.turn.isFocused && model.isRematchEnabled)
        #expect(StoryModel.rematchTitle(model.matches[StoryMatchID(3)]!) == "Open Rematch")
    }

    @Test("another match becoming yours: a notice for 6 s, a status line and the window's attention; none for the match read")
    func notice() {
        var model = signedIn([match(1, current: 1), match(2, current: 1, title: "A very long title indeed")], open: StoryMatchID(1))
        #expect(model.handle(.reply(.update(match(1, current: 0))), now: 10).isEmpty, "the match read: no notice")
        #expect(model.handle(.reply(.update(match(2, current: 0, title: "A very long title indeed"))), now: 10)
            == [.status("notice: Your turn in 'A very long tit…'"), .attention])
        #expect(model.notice?.text == "Your turn in 'A very long tit…'" && model.isAnimating)
        #expect(model.handle(.reply(.update(match(2, current: 0, title: "A very long title indeed"))), now: 11).isEmpty,
                "still Ann's: no news")
        _ = model.update(now: 16, wallClock: Self.clock)
        #expect(model.notice != nil)
        _ = model.update(now: 16.01, wallClock: Self.clock)
        #expect(model.notice == nil)
        // Opening the match a notice is about takes the notice away.
        _ = model.handle(.reply(.update(match(1, current: 1))), now: 20)
        _ = model.handle(.choose(.back), now: 20)
        _ = model.handle(.reply(.update(match(1, current: 0))), now: 21)
        #expect(model.notice != nil)
        _ = model.handle(.choose(.listMatch(StoryMatchID(1))), now: 22)
        #expect(model.notice == nil)
    }

    @Test("the connection: no service, a problem page with Back; away with no matches, the reason; refused for good, nothing more is sent or said")
    func connection() {
        let none = StoryModel(name: "Ann", problem: "no socket", now: 0, wallClock: Self.clock)
        #expect(none.page == .problem("no socket") && !none.hasService)
        var model = StoryModel(name: "Ann", now: 0, wallClock: Self.clock)
        #expect(model.handle(.connection(.retrying("cannot reach the story service. Trying again in 1 s.")), now: 1)
            == [.status("connection: cannot reach the story service. Trying again in 1 s.")])
        #expect(model.page == .problem("cannot reach the story service. Trying again in 1 s.") && !model.showsAwayBand)
        #expect(model.handle(.connection(.connected(again: false)), now: 2) == [.status("connection: signed in")])
        #expect(model.page == .list)
        _ = model.handle(.reply(.match(match(1, current: 0))), now: 2)
        _ = model.handle(.reply(.listed(count: 1)), now: 2)
        #expect(model.handle(.connection(.ended("the name Ann is taken")), now: 3)
            == [.status("connection: the name Ann is taken"), .status("list: 1 your turn, 0 their turn, 0 ended")])
        #expect(model.page == .problem("the name Ann is taken"))
        #expect(model.handle(.choose(.automatch), now: 4).isEmpty, "no service: nothing is sent")
        _ = model.handle(.choose(.listMatch(StoryMatchID(1))), now: 5)
        #expect(!model.isMyTurn)
        #expect(model.update(now: 6, wallClock: Self.clock).isEmpty, "no more status lines")
    }
}
