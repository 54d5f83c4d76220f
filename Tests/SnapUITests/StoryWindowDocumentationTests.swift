#if GUI
import SnapTestSupport
import StoryEngine
import Testing
@testable import SnapUI

/// docs/STORY.md quotes what the Story window says: its list's groups, the match view's
/// status line, the notice, a declined participant's label and the buttons. Here the
/// window's own functions make them for the matches the document's examples imply, and the
/// document must hold them. Runs of white space compare as one space.
@Suite("STORY.md quotes the Story window", .blocksThreads)
struct StoryWindowDocumentationTests {
    func expectQuoted(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try Documents.quotes("STORY.md", text), "STORY.md lacks: \(text)", sourceLocation: sourceLocation)
    }

    /// "The dragon" between Ann and Bob, `current` writing, due `secondsLeft` from now.
    func dragon(current: Int?, participants: [StoryParticipant] = [StoryParticipant(name: "Ann"), StoryParticipant(name: "Bob")],
                rematch: StoryMatchID? = nil) -> StoryMatch {
        StoryMatch(id: StoryMatchID(1), title: "The dragon", participants: participants, places: participants.count, current: current,
                   text: "Once upon a time", createdAt: 1_700_000_000, turnsTaken: 1, turnSeconds: 5 * 3600, rematch: rematch)
    }

    @Test("the list's groups: Your turn, Their turn and Ended")
    func groups() throws {
        let labels = StoryScene.groups([], for: "Ann").map(\.label)
        #expect(labels.count == 3)
        try expectQuoted("the list is split into **\(labels[0])**, **\(labels[1])** and **\(labels[2])**")
    }

    @Test("the match view's status: \"Waiting for Bob\", \"Your turn: 4 h 59 min left\", \"Waiting for Bob: Bob has 2 d left\"")
    func status() throws {
        let bobs = dragon(current: 1)
        try expectQuoted("on someone else's it says \"\(StoryScene.status(of: bobs, for: "Ann", secondsLeft: nil))\"")
        // Ann's 5 h turn a minute in; Bob with two days left.
        let yours = StoryScene.status(of: dragon(current: 0), for: "Ann", secondsLeft: 5 * 3600 - 60)
        let waiting = StoryScene.status(of: bobs, for: "Ann", secondsLeft: 2 * 86_400)
        try expectQuoted("the match view show the time left for the turn (\"\(yours)\", \"\(waiting)\") and who missed a turn")
        let missed = dragon(current: 0, participants: [StoryParticipant(name: "Ann"), StoryParticipant(name: "Bob", wrote: true, missed: 1)])
        #expect(StoryScene.status(of: missed, for: "Ann", secondsLeft: nil).hasSuffix("Bob missed a turn"))
    }

    @Test("another match becoming yours: \"Your turn in 'The dragon'\", a long title cut")
    func notice() throws {
        let notice = StoryScene.notice(dragon(current: 0))
        let long = dragon(current: 0)
        var longer = long
        longer.title = String(repeating: "d", count: StoryScene.noticeHeadingLength + 1)
        #expect(StoryScene.notice(longer) == "Your turn in '\(String(repeating: "d", count: StoryScene.noticeHeadingLength - 1))…'")
        var fits = long
        fits.title = String(repeating: "d", count: StoryScene.noticeHeadingLength)
        #expect(StoryScene.notice(fits) == "Your turn in '\(fits.title)'")
        try expectQuoted("a notice says so (\"\(notice)\"; a title past \(StoryScene.noticeHeadingLength) characters is cut with \"…\")")
    }

    @Test("who declined: \"Bob (declined)\"")
    func declined() throws {
        let label = StoryScene.label(StoryParticipant(name: "Bob", quit: true, declined: true))
        try expectQuoted("The others see who declined (\"\(label)\")")
    }

    @Test("the buttons the document names: End Turn, Automatch, New Match, Decline, Rematch, Open Rematch")
    func buttons() throws {
        typealias Action = StoryScene.Action
        try expectQuoted("press \(Action.endTurn.title) (or Enter)")
        try expectQuoted("\(Action.automatch.title) and \(Action.invite.title) (with names to invite) are under the list")
        try expectQuoted("`snapcards story decline ID`, or \(Action.decline.title) in the window")
        let ended = dragon(current: nil), rematched = dragon(current: nil, rematch: StoryMatchID(2))
        try expectQuoted("the view offers **\(Action.decline.title)** where \(Action.quit.title) would be; an ended match offers "
                         + "**\(StoryScene.rematchTitle(ended))**, which opens the new match (\(StoryScene.rematchTitle(rematched)) once there is one)")
    }
}
#endif
