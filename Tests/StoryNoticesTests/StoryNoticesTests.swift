import StoryEngine
import StoryNotices
import Testing

/// Matches made by the rules themselves, as the service would send them.
struct Story {
    var match: StoryMatch

    init(_ names: [String], title: String = "The dragon", turnSeconds: UInt64 = 0, at: UInt64 = 1000) throws {
        match = try StoryMatch.opened(StoryMatchID(1), by: .create(starter: names[0], others: Array(names.dropFirst()),
                                                                  title: title, at: at, turnSeconds: turnSeconds))
    }

    @discardableResult
    mutating func turn(_ name: String, _ text: String, at: UInt64 = 2000) throws -> StoryMatch {
        match = try match.applying(.turn(match.id, name: name, text: text, at: at))
        return match
    }

    @discardableResult
    mutating func apply(_ command: StoryCommand) throws -> StoryMatch {
        match = try match.applying(command)
        return match
    }
}

@Suite("Story notices: what is worth telling a player, and in which words")
struct StoryNoticesTests {
    @Test("the turn coming to Bob tells him so, with who wrote what since he last looked")
    func yourTurn() throws {
        var story = try Story(["Ann", "Bob"])
        var bob = StoryNotices(player: "Bob")
        #expect(bob.listed([story.match], at: 1500).isEmpty)  // Ann's turn: nothing to tell
        let notices = bob.updated(try story.turn("Ann", "Once upon a time, a dragon."), at: 2000)
        #expect(notices == [StoryNotice(match: StoryMatchID(1), kind: .yourTurn, summary: "Your turn in 'The dragon'",
                                        body: "Ann wrote: Once upon a time, a dragon.")])
        #expect(notices.first?.description == "Your turn in 'The dragon' — Ann wrote: Once upon a time, a dragon.")
        // The same view again (a repeated push): nothing.
        #expect(bob.updated(story.match, at: 2001).isEmpty)
        // Bob's own turn (from his window), then Ann's: only the second is news, and only hers.
        #expect(bob.updated(try story.turn("Bob", "It slept."), at: 2100).isEmpty)
        #expect(bob.updated(try story.turn("Ann", "Then it woke."), at: 2200).map(\.body) == ["Ann wrote: Then it woke."])
    }

    @Test("with three writers, only the turn that reaches the player counts, and the text is the last writer's")
    func threeWriters() throws {
        var story = try Story(["Ann", "Bob", "Cy"], title: "")
        var cy = StoryNotices(player: "Cy")
        #expect(cy.listed([story.match], at: 1000).isEmpty)
        #expect(cy.updated(try story.turn("Ann", "A knight rode out."), at: 2000).isEmpty)
        let notices = cy.updated(try story.turn("Bob", "Rain fell."), at: 2100)
        // No title: the heading is the story's opening.
        #expect(notices.map(\.summary) == ["Your turn in 'A knight rode out. Rain…'"])
        #expect(notices.map(\.body) == ["Bob wrote: Rain fell."])
    }

    @Test("a long turn is quoted by its end, cut at a word, with an ellipsis; a short one whole")
    func excerpt() {
        #expect(StoryNotices.excerpt("Short.") == "Short.")
        let long = (1...60).map { "word\($0)" }.joined(separator: " ")
        let cut = StoryNotices.excerpt(long)
        #expect(cut.hasPrefix("…word"), "\(cut)")
        #expect(cut.hasSuffix("word60"))
        #expect(cut.count <= StoryNotices.excerptCharacters)
        #expect(long.hasSuffix(cut.dropFirst()))
        // One very long word: cut inside it rather than lose it all.
        let word = String(repeating: "x", count: 300)
        #expect(StoryNotices.excerpt(word) == "…" + String(repeating: "x", count: StoryNotices.excerptCharacters - 1))
    }

    @Test("the first list after starting tells each turn that waits, with the story's last words; other matches and old endings stay quiet")
    func baseline() throws {
        var waiting = try Story(["Ann", "Bob"])
        try waiting.turn("Ann", "The sea was calm.")
        var theirs = try Story(["Bob", "Ann"], title: "Theirs")
        theirs.match = try StoryMatch.opened(StoryMatchID(2), by: .create(starter: "Bob", others: ["Ann"], title: "Theirs", at: 1000))
        try theirs.turn("Bob", "Bob began.")
        var over = try Story(["Ann", "Bob"])
        over.match = try StoryMatch.opened(StoryMatchID(3), by: .create(starter: "Ann", others: ["Bob"], title: "Over", at: 1000))
        try over.apply(.quit(StoryMatchID(3), name: "Ann", at: 1100))
        var fresh = try Story(["Bob", "Ann"])
        fresh.match = try StoryMatch.opened(StoryMatchID(4), by: .create(starter: "Bob", others: ["Ann"], title: "Fresh", at: 1000))

        var bob = StoryNotices(player: "Bob")
        let notices = bob.listed([waiting.match, theirs.match, over.match, fresh.match], at: 3000)
        #expect(notices.map(\.match) == [StoryMatchID(1), StoryMatchID(4)])
        #expect(notices.first?.body == "The story so far ends: The sea was calm.")
        #expect(notices.last?.body == "A new story with Ann: you write the first lines.")
        #expect(bob.hasBaseline)
    }

    @Test("after a reconnection nothing is told twice; what changed while away is told once")
    func reconnection() throws {
        var story = try Story(["Ann", "Bob", "Cy"])
        var bob = StoryNotices(player: "Bob")
        #expect(bob.listed([story.match], at: 1000).isEmpty)
        #expect(bob.updated(try story.turn("Ann", "One."), at: 2000).count == 1)
        // The connection drops and comes back: the same list says nothing new.
        #expect(bob.listed([story.match], at: 2500).isEmpty)
        // While away: Bob wrote from elsewhere, Cy and Ann too; the list shows it his turn again.
        try story.turn("Bob", "Two.")
        try story.turn("Cy", "Three.")
        try story.turn("Ann", "Four.")
        let again = bob.listed([story.match], at: 3000)
        #expect(again.map(\.body) == ["3 turns since you last looked, ending: Two. Three. Four."])
        #expect(bob.listed([story.match], at: 3100).isEmpty)
        // A push older than the list it crossed: ignored.
        var older = story.match
        older.turnsTaken -= 1
        #expect(bob.updated(older, at: 3200).isEmpty)
        #expect(bob.views[StoryMatchID(1)] == story.match)
    }

    @Test("a deadline within the hour is told once a turn, by the timer; one already near when the turn comes is said in that notice")
    func deadlines() throws {
        var story = try Story(["Ann", "Bob"], turnSeconds: 5 * 3600, at: 0)
        var bob = StoryNotices(player: "Bob")
        #expect(bob.listed([story.match], at: 10).isEmpty)
        let turn = try story.turn("Ann", "Begin.", at: 100)  // Bob's time runs out at 100 + 5 h
        let due = try #require(turn.dueAt)
        #expect(bob.updated(turn, at: 100).map(\.body) == ["Ann wrote: Begin."])
        #expect(bob.nextDeadlineCheck(after: 100) == due - 3600)
        #expect(bob.deadlines(at: due - 3601).isEmpty)
        let near = bob.deadlines(at: due - 3600)
        #expect(near == [StoryNotice(match: StoryMatchID(1), kind: .deadlineNear, summary: "1 h left in 'The dragon'",
                                     body: "Write your turn, or it passes to Ann.")])
        #expect(bob.deadlines(at: due - 600).isEmpty)  // once a turn
        #expect(bob.nextDeadlineCheck(after: due - 600) == nil)
        // Ann's deadline is none of Bob's business.
        var ann = StoryNotices(player: "Ann")
        _ = ann.listed([turn], at: 100)
        #expect(ann.deadlines(at: due - 60).isEmpty)
        // The next turn comes to Bob with 30 minutes only: one notice says both.
        var short = try Story(["Ann", "Bob"], turnSeconds: 1800, at: 0)
        var bob2 = StoryNotices(player: "Bob")
        _ = bob2.listed([short.match], at: 0)
        let quick = bob2.updated(try short.turn("Ann", "Hurry.", at: 60), at: 60)
        #expect(quick.map(\.body) == ["Ann wrote: Hurry. (30 min left)"])
        #expect(bob2.deadlines(at: 120).isEmpty)
        // At start, a turn that waits with 20 minutes left: the same.
        var bob3 = StoryNotices(player: "Bob")
        #expect(bob3.listed([short.match], at: 660).map(\.body) == ["The story so far ends: Hurry. (20 min left)"])
        // A time already past: no warning (the service passes the turn).
        var bob4 = StoryNotices(player: "Bob")
        _ = bob4.listed([short.match], at: 5000)
        #expect(bob4.deadlines(at: 5000).isEmpty)
    }

    @Test("a third missed turn ahead is said in the deadline's words")
    func lastChance() throws {
        var story = try Story(["Ann", "Bob"], turnSeconds: 7200, at: 0)
        try story.turn("Ann", "Go.", at: 0)
        try story.apply(.timeout(StoryMatchID(1), at: 7200))  // Bob missed 1; Ann's turn
        try story.turn("Ann", "Go on.", at: 7300)
        try story.apply(.timeout(StoryMatchID(1), at: 14_500))  // Bob missed 2
        try story.turn("Ann", "Please.", at: 14_600)
        var bob = StoryNotices(player: "Bob")
        _ = bob.listed([story.match], at: 14_600)
        let notices = bob.deadlines(at: try #require(story.match.dueAt) - 900)
        #expect(notices.map(\.summary) == ["15 min left in 'The dragon'"])
        #expect(notices.first?.body.contains("miss this one and you leave the story") == true, "\(notices)")
    }

    @Test("the turn passed to the player by the other's time running out says so")
    func passedByTime() throws {
        var story = try Story(["Ann", "Bob"], turnSeconds: 60, at: 0)
        try story.turn("Ann", "Hello.", at: 10)
        try story.turn("Bob", "Hi.", at: 20)
        var bob = StoryNotices(player: "Bob")
        _ = bob.listed([story.match], at: 20)
        let notices = bob.updated(try story.apply(.timeout(StoryMatchID(1), at: 80)), at: 80)
        #expect(notices.map(\.body) == ["Ann ran out of time. The story so far ends: Hello. Hi. (1 min left)"])
    }

    @Test("a turn that came round unwritten while the player was away (everyone's time ran out) says so")
    func cameRound() throws {
        var story = try Story(["Ann", "Bob", "Cy"], turnSeconds: 100, at: 0)
        try story.turn("Ann", "Ann began.", at: 0)
        var bob = StoryNotices(player: "Bob")
        #expect(bob.listed([story.match], at: 0).count == 1)
        try story.apply(.timeout(StoryMatchID(1), at: 100))  // Bob's time runs out, then Cy's, then Ann's
        try story.apply(.timeout(StoryMatchID(1), at: 200))
        try story.apply(.timeout(StoryMatchID(1), at: 300))
        let notices = bob.listed([story.match], at: 300)  // after a reconnection
        #expect(notices.map(\.body) == ["The turn came round to you again: everyone ran out of time. The story so far ends: Ann began. (1 min left)"])
    }

    @Test("the ends of a match: finished, everyone else left (declined, quit, missed turns), the player passed for missed turns")
    func endings() throws {
        // Finished: the story reached its length.
        var story = try Story(["Ann", "Bob"])
        var bob = StoryNotices(player: "Bob")
        _ = bob.listed([story.match], at: 1000)
        let chunk = String(repeating: "a", count: 240)
        var writer = "Ann"
        while !story.match.ended {
            try story.turn(writer, chunk)
            let notices = bob.updated(story.match, at: 2000)
            if story.match.ended {
                #expect(notices.map(\.summary) == ["'The dragon' is finished"])
                #expect(notices.first?.body.hasPrefix("\(story.match.turnsTaken) turns by Ann and Bob. It ends: …") == true, "\(notices)")
            }
            writer = writer == "Ann" ? "Bob" : "Ann"
        }

        // Everyone else declined Ann's invitation.
        var invitation = try Story(["Ann", "Bob", "Cy"])
        var ann = StoryNotices(player: "Ann")
        _ = ann.listed([invitation.match], at: 1000)
        #expect(ann.updated(try invitation.apply(.decline(StoryMatchID(1), name: "Bob", at: 1100)), at: 1100).isEmpty)
        let declined = ann.updated(try invitation.apply(.decline(StoryMatchID(1), name: "Cy", at: 1200)), at: 1200)
        #expect(declined == [StoryNotice(match: StoryMatchID(1), kind: .ended, summary: "'The dragon' has ended",
                                         body: "Everyone else left: Cy declined.")])

        // Seen only after a reconnection: both leavers are named.
        var away = try Story(["Ann", "Bob", "Cy"])
        var annAway = StoryNotices(player: "Ann")
        _ = annAway.listed([away.match], at: 1000)
        try away.turn("Ann", "Hello.")
        try away.apply(.quit(StoryMatchID(1), name: "Bob", at: 2100))
        try away.apply(.decline(StoryMatchID(1), name: "Cy", at: 2200))
        #expect(annAway.listed([away.match], at: 3000).map(\.body) == ["Everyone else left: Bob quit, Cy declined."])

        // The player quits themselves: no notice.
        var mine = try Story(["Ann", "Bob"])
        var bob2 = StoryNotices(player: "Bob")
        _ = bob2.listed([mine.match], at: 1000)
        #expect(bob2.updated(try mine.apply(.quit(StoryMatchID(1), name: "Bob", at: 1100)), at: 1100).isEmpty)
    }

    @Test("passed for good after three missed turns: the match goes on without the player, or ends if too few are left")
    func missedOut() throws {
        var story = try Story(["Ann", "Bob", "Cy"], turnSeconds: 100, at: 0)
        var bob = StoryNotices(player: "Bob")
        _ = bob.listed([story.match], at: 0)
        var now: UInt64 = 0
        var last: [StoryNotice] = []
        for _ in 0..<StoryRules.missedTurnsToQuit {
            now += 1
            try story.turn("Ann", "Ann again.", at: now)
            _ = bob.updated(story.match, at: now)
            now += 100
            try story.apply(.timeout(StoryMatchID(1), at: now))  // Bob's time runs out
            last = bob.updated(story.match, at: now)
            if !story.match.participants[1].quit {
                now += 1
                try story.turn("Cy", "Cy again.", at: now)
                _ = bob.updated(story.match, at: now)
            }
        }
        #expect(last == [StoryNotice(match: StoryMatchID(1), kind: .ended, summary: "You are out of 'The dragon'",
                                     body: "You missed 3 turns in a row; the story goes on without you.")])
        #expect(bob.updated(try story.turn("Cy", "On.", at: now + 5), at: now + 5).isEmpty)

        var pair = try Story(["Ann", "Bob"], turnSeconds: 100, at: 0)
        var bob2 = StoryNotices(player: "Bob")
        _ = bob2.listed([pair.match], at: 0)
        var ended: [StoryNotice] = []
        now = 0
        while !pair.match.ended {
            now += 1
            try pair.turn("Ann", "Ann.", at: now)
            _ = bob2.updated(pair.match, at: now)
            now += 100
            try pair.apply(.timeout(StoryMatchID(1), at: now))
            ended = bob2.updated(pair.match, at: now)
        }
        #expect(ended.map(\.body) == ["You missed 3 turns in a row, and too few were left to go on."])
    }

    @Test("a match first seen in a push (an invitation, a rematch) where the player writes first is their turn at once")
    func newMatch() throws {
        var bob = StoryNotices(player: "Bob")
        _ = bob.listed([], at: 0)
        let rematch = try StoryMatch.opened(StoryMatchID(9), by: .create(starter: "Bob", others: ["Ann", "Cy"], title: "Again", at: 5))
        #expect(bob.updated(rematch, at: 5).map(\.description) == ["Your turn in 'Again' — A new story with Ann and Cy: you write the first lines."])
        // Someone else's match: nothing.
        let other = try StoryMatch.opened(StoryMatchID(10), by: .create(starter: "Ann", others: ["Cy"], title: "", at: 5))
        #expect(bob.updated(other, at: 5).isEmpty)
    }
}
