import Foundation
import Testing
import SnapTestSupport

/// Game Center's turn-based features through real processes: deadlines, declines, rematches.
@Suite("Story deadlines, declines and rematches over real processes", .blocksThreads, .serialized)
struct StoryInvitationTests: StoryProcessTests {
    let directory = makeRuntimeDirectory()



    @Test("an invited player declines before writing: the others see it and go on; after writing, declining is refused")
    func decline() throws {
        let service = try serve()
        defer { service.signal(SIGTERM) }
        #expect(try story(["new", "--with", "Bob,Cy", "--name", "Ann"]).lines == ["match 1"])
        let declined = try story(["decline", "1", "--name", "Bob"])
        #expect(declined.status == 0 && declined.lines == ["declined match 1; turn: Ann"], "\(declined)")
        #expect(try story(["turn", "1", "Once upon a time.", "--name", "Ann"]).lines == ["turn passed to Cy"])  // Bob skipped
        let shown = try story(["show", "1", "--name", "Cy"])
        #expect(shown.lines.contains("Bob declined") && shown.lines.last == "turn: Cy", "\(shown)")
        let listed = try story(["list", "--name", "Ann"])
        #expect(listed.lines.count == 1 && listed.lines[0].contains("Ann,Bob (declined),Cy"), "\(listed)")
        let late = try story(["decline", "1", "--name", "Ann"])
        #expect(late.status == 1 && late.errors.contains("Ann has already written in match 1"), "\(late)")
        // Cy declines too: Ann is alone, and the match ends.
        #expect(try story(["decline", "1", "--name", "Cy"]).lines == ["declined match 1; the match has ended"])
        #expect(try story(["show", "1", "--name", "Ann"]).lines.last == "ended")
    }

    @Test("a rematch of an ended match: the same players but who declined, the next one first; asked twice, the same match")
    func rematch() throws {
        let service = try serve()
        defer { service.signal(SIGTERM) }
        #expect(try story(["new", "--with", "Bob,Cy", "--title", "The dragon", "--name", "Ann"]).lines == ["match 1"])
        let early = try story(["rematch", "1", "--name", "Bob"])
        #expect(early.status == 1 && early.errors.contains("match 1 has not ended"), "\(early)")
        #expect(try story(["turn", "1", "Once.", "--name", "Ann"]).status == 0)
        #expect(try story(["quit", "1", "--name", "Cy"]).status == 0)
        #expect(try story(["quit", "1", "--name", "Bob"]).status == 0)
        let again = try story(["rematch", "1", "--name", "Cy"])
        #expect(again.status == 0 && again.lines == ["match 2", "turn: Bob"], "\(again)")
        #expect(try story(["rematch", "1", "--name", "Ann"]).lines == ["match 2", "turn: Bob"])
        let listed = try story(["list", "--name", "Cy"])
        #expect(listed.lines.contains { $0.hasPrefix("2\t") && $0.contains("Bob,Cy,Ann") && $0.contains("The dragon") }, "\(listed)")
        #expect(try story(["show", "1", "--name", "Ann"]).lines.contains("rematch: match 2"))
    }

    @Test("a turn's deadline runs out: the turn passes as if passed, and show and list say so and how long is left")
    func deadline() throws {
        let service = try serve()
        defer { service.signal(SIGTERM) }
        let bad = try story(["new", "--with", "Bob", "--deadline", "72", "--name", "Ann"])
        #expect(bad.status == 64 && bad.errors.contains("--deadline: \"72\" is not a duration"), "\(bad)")
        #expect(try story(["new", "--with", "Bob", "--deadline", "4s", "--name", "Ann"]).lines == ["match 1"])
        #expect(try story(["new", "--with", "Bob", "--deadline", "5h", "--name", "Ann"]).lines == ["match 2"])
        let shown = try story(["show", "2", "--name", "Bob"])
        // Read within a minute of the start: 5 h, or 4 h 59 min on a slow machine.
        #expect(shown.lines == ["Ann has 5 h left", "turn: Ann"] || shown.lines == ["Ann has 4 h 59 min left", "turn: Ann"], "\(shown)")
        // Ann lets match 1's four seconds run out; Bob's own four start then.
        var passed: [String] = []
        for _ in 0..<40 {
            passed = try story(["show", "1", "--name", "Bob"]).lines
            if passed.last == "turn: Bob" { break }
            Thread.sleep(forTimeInterval: 0.2)
        }
        #expect(passed.last == "turn: Bob" && passed.contains("Ann missed 1 turn in a row"), "\(passed)")
        let listed = try story(["list", "--name", "Bob"])
        #expect(listed.lines.contains { $0.hasPrefix("1\tyour turn\tturn: Bob\t") && $0.hasSuffix(" s left") }, "\(listed)")
        #expect(listed.lines.contains { $0.hasPrefix("2\ttheir turn\tturn: Ann\t") && ($0.hasSuffix("\t4 h 59 min left") || $0.hasSuffix("\t5 h left")) }, "\(listed)")
    }
}
