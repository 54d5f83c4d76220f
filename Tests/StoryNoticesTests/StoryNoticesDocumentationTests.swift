import Foundation
import StoryEngine
import StoryLink
import StoryNotices
import SnapTestSupport
import Testing

/// docs/STORY.md's Notices section quotes the notices' words and numbers: here they are made
/// by StoryNotices and the document must hold them. Runs of white space compare as one space.
@Suite("STORY.md quotes the notices", .blocksThreads)
struct StoryNoticesDocumentationTests {
    static func document() throws -> String { try Documents.text("STORY.md") }

    func expectQuoted(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try Self.document().contains(text), "STORY.md lacks: \(text)", sourceLocation: sourceLocation)
    }

    @Test("a deadline within the hour: \"45 min left in 'The dragon'\" — \"Write your turn, or it passes to Bob.\"")
    func deadline() throws {
        var story = try Story(["Bob", "Ann"], turnSeconds: 72 * 3600, at: 1000)
        try story.turn("Bob", "Once.", at: 1000)
        var ann = StoryNotices(player: "Ann")
        let due = try #require(story.match.dueAt)
        _ = ann.listed([story.match], at: due - 2 * 3600)
        let notice = try #require(ann.deadlines(at: due - 45 * 60).first)
        try expectQuoted("their time for a turn runs out within the hour: \"\(notice.summary)\" — \"\(notice.body)\"")
        // "within the hour" is the notice's threshold.
        #expect(StoryNotices.deadlineWarning == 3600)
        #expect(ann.deadlines(at: due - StoryNotices.deadlineWarning - 1).isEmpty)
    }

    @Test("the deadlines looked at every 15 s; a lost service tried again after 1 s, 2 s, 4 s … up to 60 s")
    func checksAndRetries() throws {
        try expectQuoted("(once a turn, looked at every \(StoryNotices.checkSeconds) s;")
        // The waits as notify's StoryReconnect takes them, from the first until they stop growing.
        var link = StoryReconnect()
        var now = Duration.zero
        _ = link.handle(.start, now: now)
        var waits: [Int64] = []
        while waits.count < 20 {
            guard case .retrying(let after, _, _)? = link.handle(.signInFailed("refused", retry: true), now: now).first else { break }
            let seconds = after.components.seconds
            if seconds == waits.last { break }
            waits.append(seconds)
            now += after
            _ = link.handle(.timerFired, now: now)
        }
        #expect(waits.count > 3 && waits.last == StoryReconnect.longestWait.components.seconds, "\(waits)")
        try expectQuoted("waiting \(waits[0]) s, \(waits[1]) s, \(waits[2]) s … up to \(waits.last!) s between tries, for as long as it runs")
    }

    @Test("a turn's notice quotes at most 120 characters; a finished match: \"'The dragon' is finished\"")
    func excerptAndFinished() throws {
        try expectQuoted("the end of what was added since they last looked (at most \(StoryNotices.excerptCharacters) characters, cut at a word)")
        var story = try Story(["Ann", "Bob"])
        var bob = StoryNotices(player: "Bob")
        _ = bob.listed([story.match], at: 1000)
        var writer = "Ann", last: [StoryNotice] = []
        while !story.match.ended {
            try story.turn(writer, String(repeating: "a", count: StoryRules.maxTurnScalars))
            last = bob.updated(story.match, at: 2000)
            writer = writer == "Ann" ? "Bob" : "Ann"
        }
        let finished = try #require(last.first)
        try expectQuoted("a match ends for them: finished (\"\(finished.summary)\")")
    }
}
