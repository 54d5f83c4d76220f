import Testing
@testable import StoryEngine

@Suite("Story rules")
struct StoryBookTests {
    let one = StoryMatchID(1)

    func book(_ names: [String] = ["Ann", "Bob", "Cy"]) throws -> StoryBook {
        var book = StoryBook()
        try book.apply(.create(starter: names[0], others: Array(names.dropFirst()), title: "T", at: 10))
        return book
    }

    @Test("the starter writes first; turns go round in order, text joined by a space")
    func order() throws {
        var book = try book()
        #expect(book[one]!.currentName == "Ann")
        #expect(try book.apply(.turn(one, name: "Ann", text: "Once", at: 11)).currentName == "Bob")
        #expect(try book.apply(.turn(one, name: "Bob", text: "upon", at: 12)).currentName == "Cy")
        let match = try book.apply(.turn(one, name: "Cy", text: "a time", at: 13))
        #expect(match.currentName == "Ann")
        #expect(match.text == "Once upon a time")
        #expect(match.lastTurnAt == 13 && match.turnsTaken == 3)
        #expect(throws: StoryError.notYourTurn(one, current: "Ann")) { try book.apply(.turn(one, name: "Bob", text: "x", at: 14)) }
    }

    @Test("quit in turn passes the turn on; quit out of turn leaves it where it is; quitters are skipped")
    func quits() throws {
        var book = try book(["Ann", "Bob", "Cy", "Di"])
        #expect(try book.apply(.quit(one, name: "Ann", at: 11)).currentName == "Bob")  // in turn
        #expect(try book.apply(.quit(one, name: "Cy", at: 12)).currentName == "Bob")  // out of turn
        #expect(try book.apply(.turn(one, name: "Bob", text: "a", at: 13)).currentName == "Di")
        #expect(try book.apply(.turn(one, name: "Di", text: "b", at: 14)).currentName == "Bob")  // Ann and Cy skipped
        #expect(throws: StoryError.quitParticipant(one, "Cy")) { try book.apply(.turn(one, name: "Cy", text: "c", at: 15)) }
        #expect(throws: StoryError.quitParticipant(one, "Ann")) { try book.apply(.quit(one, name: "Ann", at: 15)) }
    }

    @Test("the match ends when fewer than two have not quit")
    func endsWhenAlone() throws {
        var book = try book()
        #expect(try book.apply(.quit(one, name: "Cy", at: 11)).ended == false)
        let match = try book.apply(.quit(one, name: "Bob", at: 12))
        #expect(match.ended && match.currentName == nil)
        #expect(throws: StoryError.matchOver(one)) { try book.apply(.turn(one, name: "Ann", text: "x", at: 13)) }
        #expect(throws: StoryError.matchOver(one)) { try book.apply(.quit(one, name: "Ann", at: 13)) }
    }

    @Test("a turn takes 1 to 250 Unicode scalars, whatever their bytes")
    func turnCap() throws {
        var book = try book()
        #expect(throws: StoryError.tooLong(scalars: 251)) { try book.apply(.turn(one, name: "Ann", text: String(repeating: "é", count: 251), at: 11)) }
        #expect(throws: StoryError.emptyTurn) { try book.apply(.turn(one, name: "Ann", text: "", at: 11)) }
        #expect(throws: StoryError.controlCharacter) { try book.apply(.turn(one, name: "Ann", text: "a\nb", at: 11)) }
        #expect(book[one]!.text == "" && book[one]!.currentName == "Ann")  // refusals change nothing
        let text = String(repeating: "🐉", count: 250)  // 250 scalars, 1000 bytes
        #expect(try book.apply(.turn(one, name: "Ann", text: text, at: 11)).textBytes == 1000)
    }

    /// Brings match 1 (Ann, Bob) to exactly `bytes` bytes of story.
    func story(of bytes: Int) throws -> StoryBook {
        var book = try book(["Ann", "Bob"])
        var names = ["Ann", "Bob"]
        while book[one]!.textBytes < bytes {
            let left = bytes - book[one]!.textBytes - (book[one]!.textBytes == 0 ? 0 : 1)
            var chunk = min(250, left)
            if left - chunk == 1 { chunk -= 1 }  // never leave a gap only a separator fits
            try book.apply(.turn(one, name: names[0], text: String(repeating: "a", count: chunk), at: 11))
            names.swapAt(0, 1)
        }
        return book
    }

    @Test("from 3000 bytes everyone sees the letters left; past 3800 the story is finished")
    func thresholds() throws {
        var book = try story(of: 2999)
        #expect(book[one]!.textBytes == 2999 && book[one]!.lettersLeft == nil)
        book = try story(of: 3000)
        #expect(book[one]!.lettersLeft == 800)
        // Exactly 3800 goes on; one byte more finishes.
        book = try story(of: 3700)
        var match = try book.apply(.turn(one, name: book[one]!.currentName!, text: String(repeating: "b", count: 99), at: 12))
        #expect(match.textBytes == 3800 && !match.ended && match.lettersLeft == 0)
        match = try book.apply(.turn(one, name: match.currentName!, text: "c", at: 13))
        #expect(match.textBytes == 3802 && match.ended)
    }

    @Test("no turn makes the story longer than 4096 bytes: refused, nothing lost")
    func hardLimit() throws {
        var book = try story(of: 3790)
        let before = book[one]!
        let name = before.currentName!
        // 1 + 1000 bytes would make 4791.
        #expect(throws: StoryError.storyTooLong(bytes: 4791)) {
            try book.apply(.turn(one, name: name, text: String(repeating: "🐉", count: 250), at: 12))
        }
        #expect(book[one]! == before)
        // 1 + 306 = 4097 is one over; 1 + 305 = 4096 is allowed and finishes the story.
        #expect(throws: StoryError.storyTooLong(bytes: 4097)) {
            try book.apply(.turn(one, name: name, text: String(repeating: "é", count: 153), at: 12))
        }
        let done = try book.apply(.turn(one, name: name, text: String(repeating: "é", count: 152) + "a", at: 12))
        #expect(done.textBytes == 4096 && done.ended)
    }

    @Test("automatch fills the oldest open match with a free place, else opens one; the starter writes first")
    func automatch() throws {
        var book = StoryBook()
        let first = try book.apply(.automatch(name: "Ann", at: 1))
        #expect(first.id == one && first.isOpen && first.currentName == "Ann")
        // Ann again: she is in match 1, so a second open match.
        let second = try book.apply(.automatch(name: "Ann", at: 2))
        #expect(second.id == StoryMatchID(2))
        #expect(try book.apply(.automatch(name: "Bob", at: 3)).id == one)
        #expect(try book.apply(.automatch(name: "Cy", at: 4)).id == one)
        #expect(try book.apply(.automatch(name: "Di", at: 5)).id == one)  // now full (4 places)
        #expect(!book[one]!.isOpen)
        #expect(try book.apply(.automatch(name: "Ed", at: 6)).id == StoryMatchID(2))
        #expect(book[one]!.participants.map(\.name) == ["Ann", "Bob", "Cy", "Di"])
        // Invitations are never automatched into.
        var invited = try self.book(["Ann", "Bob"])
        #expect(try invited.apply(.automatch(name: "Cy", at: 7)).id == StoryMatchID(2))
        // The turn passes to a newcomer who joined meanwhile.
        #expect(try book.apply(.turn(StoryMatchID(2), name: "Ann", text: "x", at: 8)).currentName == "Ed")
    }

    @Test("an open match whose starter is alone gives the turn back to them; an ended one takes nobody")
    func aloneInOpenMatch() throws {
        var book = StoryBook()
        try book.apply(.automatch(name: "Ann", at: 1))
        #expect(try book.apply(.turn(one, name: "Ann", text: "x", at: 2)).currentName == "Ann")
        #expect(try book.apply(.quit(one, name: "Ann", at: 3)).ended)
        #expect(try book.apply(.automatch(name: "Bob", at: 4)).id == StoryMatchID(2))
    }

    @Test("creation checks the participants and the title")
    func creation() throws {
        var book = StoryBook()
        #expect(throws: StoryError.participantCount(1)) { try book.apply(.create(starter: "Ann", others: [], title: "", at: 1)) }
        let many = (1...16).map { "P\($0)" }
        #expect(throws: StoryError.participantCount(17)) { try book.apply(.create(starter: "Ann", others: many, title: "", at: 1)) }
        #expect(throws: StoryError.duplicateParticipant("Ann")) { try book.apply(.create(starter: "Ann", others: ["Ann"], title: "", at: 1)) }
        #expect(throws: StoryError.titleTooLong(scalars: 61)) {
            try book.apply(.create(starter: "Ann", others: ["Bob"], title: String(repeating: "t", count: 61), at: 1))
        }
        #expect(throws: StoryError.unknownMatch(one)) { try book.apply(.turn(one, name: "Ann", text: "x", at: 1)) }
        try book.apply(.create(starter: "Ann", others: ["Bob"], title: "", at: 1))
        #expect(throws: StoryError.notAParticipant(one, "Cy")) { try book.apply(.turn(one, name: "Cy", text: "x", at: 1)) }
        #expect(book.matches(of: "Bob").map(\.id) == [one])
    }
}
