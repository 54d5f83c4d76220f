import Foundation
import SnapBytes
import SnapProtocol
import SnapTestSupport
import Testing
@testable import SnapSession

/// The host's numbers and words that docs/PROTOCOL.md quotes (§8, §10, §11, §14), as the
/// session has them: a change to either side that makes the document wrong fails here.
/// The document's line breaks do not matter: runs of white space compare as one space.
@Suite("PROTOCOL.md quotes the host session")
struct ProtocolDocumentationTests {
    static func document() throws -> String { try Documents.text("PROTOCOL.md") }

    static func oneLine(_ text: String) -> String { Documents.oneLine(text) }

    let defaults = HostConfiguration(hostName: "Host")

    func expectQuoted(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try Self.document().contains(Self.oneLine(text)), "PROTOCOL.md lacks: \(text)", sourceLocation: sourceLocation)
    }

    @Test("§10's caps on connections and the words of their refusals")
    func connectionCaps() throws {
        try expectQuoted("at most **\(defaults.maxConnections)** network connections at once, and of those at most "
                         + "**\(defaults.maxSigningIn)** that have not sent `hello` or `query` yet")
        try expectQuoted("`closing(full, \"\(Seating.tooManyText(defaults.maxConnections))\")`")
        try expectQuoted("`closing(full, \"\(Seating.tooManySigningInText(defaults.maxSigningIn))\")`")
        try expectQuoted("within **\(defaults.signInTimeout.secondsText)** of connecting gets "
                         + "`closing(timedOut, \"\(Liveness.noHelloText(defaults.signInTimeout))\")`")
        // What `snapcards join` prints of it (§2).
        try expectQuoted("`\(ClientOutcome.refused(.full, "the host is busy: …").description)` and exits 1")
        #expect(defaults.pingInterval == .seconds(1))  // "at the host's next once-a-second check"
        try expectQuoted("at the host's next once-a-second check")
    }

    @Test("§11's silence limit and its words; §8's timedOut row")
    func silence() throws {
        try expectQuoted("has not echoed a `ping` for **\(Int(defaults.silenceLimit / .seconds(1))) seconds**, with "
                         + "`closing(timedOut, \"\(Liveness.silenceText(defaults.silenceLimit))\")`")
        try expectQuoted("| `timedOut` | \(CloseReason.timedOut.rawValue) | no `hello` within \(defaults.signInTimeout.secondsText) "
                         + "of connecting, no `pong` echoing a `ping` for \(defaults.silenceLimit.secondsText),")
    }

    @Test("the host's other closing words (§5, §7, §10), and what clients show of a deal (§6) and of an away seat (§8)")
    func otherWords() throws {
        try expectQuoted("that one gets `closing(timedOut, \"\(HostSession.replacedText)\")`")
        let watcher = try #require(HostSession.watcherCannotPlayText.split(separator: ":").first)
        try expectQuoted("`turn` or `snap` from a watcher is a protocol violation (\"\(watcher)\")")
        try expectQuoted("it gets `closing(timedOut, \"\(HostSession.tooSlowText("…"))\")` and is closed")
        let verified = DealVerdict.verified(round: 1).line
        try expectQuoted("It then shows \"\(verified.dropFirst("round 1: ".count))\", or warns loudly")
        #expect(verified == "round 1: deal verified")
        try expectQuoted("show the seat's name as \"\(ClientSession.awayName("Ann"))\" meanwhile")
        // §8's seatAway: how many turns the timer takes before a computer plays the seat, in words.
        let words = [2: "two", 3: "three", 4: "four", 5: "five"]
        let away = try #require(words[defaults.awayAfterMissedTurns], "\(defaults.awayAfterMissedTurns) turns")
        try expectQuoted("took this seat's turn several times in a row (\(away), by default)")
    }

    @Test("the host's words in §6's version refusal, §8's and §10's protocol violation, and §10's wrong join codes")
    func refusalWords() throws {
        let current = ProtocolVersion.current
        try expectQuoted("offering \(current - 1)–\(current - 1) with `closing(versionUnsupported, "
                         + "\"\(Seating.versionText(offered: (current - 1)...(current - 1)))\")`")
        let gap = WireText.sequenceGap(expected: 4, got: 5)
        try expectQuoted("Example: a protocol violation, \"\(gap)\"")
        try expectQuoted("fault (for instance `\(gap)`)")
        try expectQuoted("`closing(wrongCode, \"\(JoinCodeGuard.refusedUnheardText("ADDRESS", seconds: 1).replacingOccurrences(of: "in 1 s", with: "in N s"))\")`")
    }

    @Test("the numbers §3, §4, §6, §7 and §8 give in their prose and tables, besides §14's summary")
    func proseNumbers() throws {
        try expectQuoted("- 1 to \(PlayerName.maxScalars) Unicode scalar values (code points), and at most \(PlayerName.maxBytes) bytes of UTF-8;")
        #expect(throws: ProtocolError.self) { try PlayerName.validate("") }
        try expectQuoted("is at least \(Frame.minBodyLength) and at most **\(Frame.maxBodyLength) bytes**, so a whole frame is at most "
                         + "\(Frame.maxBodyLength + Frame.prefixLength) bytes with its length prefix")
        try expectQuoted("treats a length below \(Frame.minBodyLength) or above \(Frame.maxBodyLength)")
        try expectQuoted("This document is version **\(ProtocolVersion.current)**")
        try expectQuoted("(`graceMillis` in `gameStarted`, \(defaults.grace.secondsText) by default)")
        try expectQuoted("| `joinCode` | `string` | 0–\(JoinCode.maxWireBytes) bytes: the host's [join code](#join-codes) as the player "
                         + "typed it, or empty for none. A length above \(JoinCode.maxWireBytes) is a decoding error")
        try expectQuoted("(the window shows a countdown in the last \(ClientSession.turnCountdownWindow.secondsText))")
        try expectQuoted("| `message` | `string` | for people: 0–\(CloseMessage.maxBytes) bytes of UTF-8 with no control characters")
    }

    @Test("§14's connections, silence and grace, and §10's wrong join codes")
    func limits() throws {
        try expectQuoted("| connections | \(defaults.maxConnections) at once, \(defaults.maxSigningIn) of them not signed in; "
                         + "`hello` within \(defaults.signInTimeout.secondsText);")
        try expectQuoted("| silence | \(defaults.silenceLimit.secondsText) without a `pong`")
        try expectQuoted("| grace | a dropped player's seat waits `graceMillis` (\(defaults.grace.secondsText) by default)")
        try expectQuoted("After **\(defaults.wrongCodesAllowed)** wrong codes in a row from one address")
        try expectQuoted("doubling with each one up to **\(defaults.wrongCodeMaxPause.secondsText)**")
        try expectQuoted("\(defaults.wrongCodesAllowed) wrong codes from one address, then refused for 1 s doubling to "
                         + "\(defaults.wrongCodeMaxPause.secondsText)")
        #expect(try Documents.quotes("LAN.md", "after \(defaults.wrongCodesAllowed), the address is refused unheard for 1 s, doubling "
                                     + "with each further wrong code up to \(defaults.wrongCodeMaxPause.secondsText)."), "LAN.md's wrong codes")
    }
}
