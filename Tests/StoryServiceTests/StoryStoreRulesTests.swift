import StoryEngine
import Testing
@testable import StoryStores

/// The rules every store drives (`StoryStoreRules.next`), without a store: what each
/// command reads, in what order, and what it writes. That stores apply them alike is
/// `StoryStoreContractTests`.
@Suite("Story store rules, as a machine")
struct StoryStoreRulesTests {
    let ann = StoryMatch(id: StoryMatchID(3), title: "T", participants: [StoryParticipant(name: "Ann"), StoryParticipant(name: "Bob")],
                         places: 2, current: 0, createdAt: 1)

    @Test("a turn reads its match and writes it changed; a missing match or a refused turn writes nothing")
    func turn() throws {
        let turn = StoryCommand.turn(ann.id, name: "Ann", text: "Once", at: 2)
        #expect(try StoryStoreRules.next(turn, read: []) == .read(.match(ann.id)))
        let changed = try ann.applying(turn)
        #expect(changed != ann)
        #expect(try StoryStoreRules.next(turn, read: [.match(ann)]) == .write([.update(changed)], answer: changed))
        #expect(throws: StoryError.unknownMatch(ann.id)) { try StoryStoreRules.next(turn, read: [.match(nil)]) }
        #expect(throws: StoryError.notYourTurn(ann.id, current: "Ann")) {
            try StoryStoreRules.next(.turn(ann.id, name: "Bob", text: "No", at: 2), read: [.match(ann)])
        }
    }

    @Test("automatch joins the oldest open match it reads, or reads the next id and opens one")
    func automatch() throws {
        let command = StoryCommand.automatch(name: "Cy", at: 5)
        #expect(try StoryStoreRules.next(command, read: []) == .read(.oldestOpen(excluding: "Cy")))
        #expect(try StoryStoreRules.next(command, read: [.match(nil)]) == .read(.nextID))
        let opened = try StoryMatch.opened(StoryMatchID(9), by: command)
        #expect(try StoryStoreRules.next(command, read: [.match(nil), .id(StoryMatchID(9))]) == .write([.insert(opened)], answer: opened))
        let open = try StoryMatch.opened(StoryMatchID(4), by: .automatch(name: "Dee", at: 1))
        let joined = try open.applying(command)
        #expect(try StoryStoreRules.next(command, read: [.match(open)]) == .write([.update(joined)], answer: joined))
    }

    @Test("a rematch inserts the new match and marks the old one; asked again, it is the match made before, unwritten")
    func rematch() throws {
        let ended = try ann.applying(.quit(ann.id, name: "Bob", at: 3))
        #expect(ended.ended)
        let command = StoryCommand.rematch(ann.id, name: "Ann", at: 4)
        #expect(try StoryStoreRules.next(command, read: []) == .read(.match(ann.id)))
        #expect(try StoryStoreRules.next(command, read: [.match(ended)]) == .read(.nextID))
        let made = try ended.rematched(as: StoryMatchID(10), by: "Ann", at: 4)
        var marked = ended
        marked.rematch = made.id
        #expect(try StoryStoreRules.next(command, read: [.match(ended), .id(StoryMatchID(10))])
                == .write([.insert(made), .update(marked)], answer: made))
        // Asked again: the match it points to is read, and answered as it is.
        #expect(try StoryStoreRules.next(command, read: [.match(marked)]) == .read(.match(made.id)))
        #expect(try StoryStoreRules.next(command, read: [.match(marked), .match(made)]) == .write([], answer: made))
    }
}
