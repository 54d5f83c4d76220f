import Testing
@testable import StoryEngine

@Suite("Story deadlines, declines and rematches")
struct StoryDeadlineTests {
    let one = StoryMatchID(1)
    let hour: UInt64 = 3600

    func book(_ names: [String] = ["Ann", "Bob", "Cy"], turnSeconds: UInt64 = 3600) throws -> StoryBook {
        var book = StoryBook()
        try book.apply(.create(starter: names[0], others: Array(names.dropFirst()), title: "T", at: 100, turnSeconds: turnSeconds))
        return book
    }

    @Test("each turn has its deadline from when it began; a turn taken starts the next one's clock")
    func clock() throws {
        var book = try book()
        #expect(book[one]!.dueAt == 100 + hour && book[one]!.secondsLeft(at: 100 + 600) == hour - 600)
        let match = try book.apply(.turn(one, name: "Ann", text: "Once", at: 500))
        #expect(match.currentName == "Bob" && match.dueAt == 500 + hour)
        #expect(match.secondsLeft(at: 500 + 2 * hour) == 0)
        // No deadline: no clock.
        var free = try self.book(turnSeconds: 0)
        #expect(free[one]!.dueAt == nil && free[one]!.secondsLeft(at: 1_000_000) == nil)
        #expect(throws: StoryError.notDue(one)) { try free.apply(.timeout(one, at: 1_000_000)) }
    }

    @Test("a deadline past the end of time (a damaged or hostile record's) is the end of time, not a trap")
    func deadlineAtTheEndOfTime() throws {
        // Found by the story fuzz target: a create record at 2^64 - 10 with 3,600 s a turn.
        var book = StoryBook()
        let match = try book.apply(.create(starter: "Ann", others: ["Bob"], title: "T", at: .max - 10, turnSeconds: hour))
        #expect(match.dueAt == .max && match.secondsLeft(at: .max - 10) == 10)
        #expect(throws: StoryError.notDue(one)) { try book.apply(.timeout(one, at: .max - 1)) }
        let passed = try book.apply(.timeout(one, at: .max))
        #expect(passed.currentName == "Bob" && passed.dueAt == .max)
    }

    @Test("when time runs out the turn passes as if passed; a timeout before the deadline is refused and changes nothing")
    func timeout() throws {
        var book = try book()
        let before = book[one]!
        #expect(throws: StoryError.notDue(one)) { try book.apply(.timeout(one, at: 100 + hour - 1)) }
        #expect(book[one]! == before)
        let match = try book.apply(.timeout(one, at: 100 + hour))
        #expect(match.currentName == "Bob" && match.participants[0].missed == 1 && !match.participants[0].quit)
        #expect(match.text == "" && match.turnsTaken == 0 && match.dueAt == 100 + 2 * hour)
    }

    @Test("three turns missed in a row count as quitting; a turn taken in between starts the count again")
    func threeMissed() throws {
        var book = try book(["Ann", "Bob", "Cy"])
        var now: UInt64 = 100
        func expire() throws -> StoryMatch {
            now = book[one]!.dueAt!
            return try book.apply(.timeout(one, at: now))
        }
        // "In a row" counts Ann's own turns: others write between her misses. Two misses, then a turn of hers.
        _ = try expire()  // Ann 1
        _ = try book.apply(.turn(one, name: "Bob", text: "b", at: now + 1))
        _ = try book.apply(.turn(one, name: "Cy", text: "c", at: now + 2))
        _ = try expire()  // Ann 2
        _ = try book.apply(.turn(one, name: "Bob", text: "b", at: now + 1))
        _ = try book.apply(.turn(one, name: "Cy", text: "c", at: now + 2))
        // Ann writes this time: her count goes back to 0.
        #expect(try book.apply(.turn(one, name: "Ann", text: "a", at: now + 3)).participants[0].missed == 0)
        _ = try book.apply(.turn(one, name: "Bob", text: "b", at: now + 4))
        _ = try book.apply(.turn(one, name: "Cy", text: "c", at: now + 5))
        for _ in 1...2 {
            _ = try expire()
            _ = try book.apply(.turn(one, name: "Bob", text: "b", at: now + 1))
            _ = try book.apply(.turn(one, name: "Cy", text: "c", at: now + 2))
        }
        let match = try expire()  // the third in a row
        #expect(match.participants[0].missed == 3 && match.participants[0].quit && !match.participants[0].declined)
        #expect(match.currentName == "Bob" && !match.ended)
        #expect(throws: StoryError.quitParticipant(one, "Ann")) { try book.apply(.turn(one, name: "Ann", text: "late", at: now + 1)) }
    }

    @Test("a match of two ends when one of them misses a third turn in a row")
    func twoEnds() throws {
        var book = try book(["Ann", "Bob"])
        var match = book[one]!
        for _ in 1...3 {
            match = try book.apply(.timeout(one, at: match.dueAt!))  // Ann misses
            if match.ended { break }
            match = try book.apply(.turn(one, name: "Bob", text: "b", at: match.dueAt! - 1))
        }
        #expect(match.ended && match.dueAt == nil && match.participants[0].quit)
        #expect(throws: StoryError.matchOver(one)) { try book.apply(.timeout(one, at: 1_000_000_000)) }
    }

    @Test("an invited participant may decline before writing; the match goes on without them, or ends with fewer than two")
    func decline() throws {
        var book = try book(["Ann", "Bob", "Cy"])
        var match = try book.apply(.decline(one, name: "Bob", at: 200))
        #expect(match.participants[1].declined && match.participants[1].quit && match.currentName == "Ann" && !match.ended)
        #expect(try book.apply(.turn(one, name: "Ann", text: "Once", at: 300)).currentName == "Cy")  // Bob skipped
        // Cy declines in turn: the turn moves on, and with Ann alone the match ends.
        match = try book.apply(.decline(one, name: "Cy", at: 400))
        #expect(match.ended && match.participants.map(\.declined) == [false, true, true])
        #expect(throws: StoryError.matchOver(one)) { try book.apply(.decline(one, name: "Ann", at: 500)) }
    }

    @Test("declining is for before one's first turn: after it, quit; strangers and quitters cannot")
    func declineRefusals() throws {
        var book = try book(["Ann", "Bob", "Cy"])
        try book.apply(.turn(one, name: "Ann", text: "Once", at: 200))
        let before = book[one]!
        #expect(throws: StoryError.alreadyWrote(one, "Ann")) { try book.apply(.decline(one, name: "Ann", at: 300)) }
        #expect(throws: StoryError.notAParticipant(one, "Di")) { try book.apply(.decline(one, name: "Di", at: 300)) }
        #expect(book[one]! == before)
        try book.apply(.quit(one, name: "Cy", at: 300))
        #expect(throws: StoryError.quitParticipant(one, "Cy")) { try book.apply(.decline(one, name: "Cy", at: 300)) }
        // Bob declines in his turn, before writing: Ann is left alone, so the match ends.
        let match = try book.apply(.decline(one, name: "Bob", at: 400))
        #expect(match.ended)  // Ann alone
    }

    @Test("a rematch of an ended match: the same people but those who declined, the next one starting; asked twice, one match")
    func rematch() throws {
        var book = try book(["Ann", "Bob", "Cy", "Di"])
        #expect(throws: StoryError.notEnded(one)) { try book.apply(.rematch(one, name: "Ann", at: 200)) }
        try book.apply(.decline(one, name: "Di", at: 200))
        try book.apply(.quit(one, name: "Cy", at: 210))
        try book.apply(.quit(one, name: "Ann", at: 220))
        #expect(book[one]!.ended)
        #expect(throws: StoryError.notAParticipant(one, "Ed")) { try book.apply(.rematch(one, name: "Ed", at: 230)) }
        let again = try book.apply(.rematch(one, name: "Cy", at: 300))
        #expect(again.id == StoryMatchID(2) && again.participants.map(\.name) == ["Bob", "Cy", "Ann"])
        #expect(again.currentName == "Bob" && again.title == "T" && again.turnSeconds == hour && again.dueAt == 300 + hour)
        #expect(again.participants.allSatisfy { !$0.quit && !$0.wrote && $0.missed == 0 })
        #expect(book[one]!.rematch == again.id)
        #expect(try book.apply(.rematch(one, name: "Bob", at: 400)) == again)
        #expect(book.matches.count == 2)
    }

    @Test("a missed turn changes neither turns taken nor the last turn's time; it counts a miss, cleared by a turn written")
    func missedTurnCounts() throws {
        var book = try book(["Ann", "Bob"])
        try book.apply(.turn(one, name: "Ann", text: "Once", at: 200))
        let missed = try book.apply(.timeout(one, at: 200 + hour))  // Bob's
        #expect(missed.turnsTaken == 1 && missed.lastTurnAt == 200 && missed.participants[1].missed == 1)
        #expect(missed.currentName == "Ann")
    }

    @Test("the starter may decline before writing, as anyone: the turn passes on, or the match ends with one left")
    func starterDeclines() throws {
        var book = try book(["Ann", "Bob", "Cy"])
        let match = try book.apply(.decline(one, name: "Ann", at: 200))
        #expect(match.participants[0].declined && match.currentName == "Bob" && !match.ended && match.dueAt == 200 + hour)
        var pair = try self.book(["Ann", "Bob"])
        #expect(try pair.apply(.decline(one, name: "Ann", at: 200)).ended)
    }

    @Test("declining again: quitParticipant while the match goes on, matchOver once it has ended, as for anyone's decline then")
    func declineTwice() throws {
        var book = try book(["Ann", "Bob", "Cy"])
        try book.apply(.decline(one, name: "Cy", at: 200))
        #expect(throws: StoryError.quitParticipant(one, "Cy")) { try book.apply(.decline(one, name: "Cy", at: 300)) }
        try book.apply(.decline(one, name: "Bob", at: 300))  // Ann alone: ended
        #expect(throws: StoryError.matchOver(one)) { try book.apply(.decline(one, name: "Bob", at: 400)) }
        // Any ended match: Ann, left alone without having written, cannot decline it either.
        #expect(throws: StoryError.matchOver(one)) { try book.apply(.decline(one, name: "Ann", at: 400)) }
    }

    @Test("one who declined may ask for the rematch, which leaves them out; places is the new count; fewer than two left: refused")
    func declinerAsksForRematch() throws {
        var book = try book(["Ann", "Bob", "Cy"])
        try book.apply(.decline(one, name: "Bob", at: 200))
        try book.apply(.quit(one, name: "Ann", at: 210))
        let again = try book.apply(.rematch(one, name: "Bob", at: 300))
        #expect(again.participants.map(\.name) == ["Cy", "Ann"] && again.places == 2 && again.current == 0)
        #expect(try book.apply(.rematch(one, name: "Bob", at: 400)) == again)  // asked again: the same match
        // Of two, one declined: no rematch to be had.
        var pair = try self.book(["Ann", "Bob"])
        try pair.apply(.decline(one, name: "Bob", at: 200))
        #expect(throws: StoryError.participantCount(1)) { try pair.apply(.rematch(one, name: "Ann", at: 300)) }
    }

    @Test("an automatch opener alone has no clock; it starts when a second player arrives")
    func automatchClock() throws {
        var book = StoryBook()
        let opened = try book.apply(.automatch(name: "Ann", at: 10, turnSeconds: hour))
        #expect(opened.dueAt == nil)
        #expect(try book.apply(.turn(one, name: "Ann", text: "x", at: 20)).dueAt == nil)  // back to Ann, still alone
        let joined = try book.apply(.automatch(name: "Bob", at: 30, turnSeconds: hour))
        #expect(joined.dueAt == 30 + hour && joined.currentName == "Ann")
    }
}
