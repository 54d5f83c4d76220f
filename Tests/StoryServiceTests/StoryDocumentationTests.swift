import Foundation
import NIOCore
import SnapBytes
import SnapPlatform
import StoryEngine
import SnapTestSupport
import Testing
@testable import StoryLink
@testable import StoryProtocol
@testable import StoryService
@testable import StoryStores
import StoryStoresPostgres
@testable import StoryStores

/// The byte examples in docs/PROTOCOL.md's story section are these messages, byte for byte.
/// (They are fenced as `story`, not `text`: the `text` blocks are Snap!'s fixtures.)
@Suite("Story protocol documentation", .blocksThreads)
struct StoryDocumentationTests {
    /// Ann's key pair: the private key is the bytes 01 02 … 20.
    static let key = StoryKey(privateKeyBytes: Array(1...32))!
    /// The challenge's nonce: 20 21 … 3f.
    static let nonce = [UInt8](0x20...0x3F)
    /// Ann's signature of the sign-in message for that nonce on a Unix socket (Ed25519 is
    /// deterministic; `signature` checks that it verifies).
    static let signature = hexBytes("85f0478b24157de87517ea59bcf7eb7d78b9ad6ddc2e657a58a046ccde7a815885cf938e48078fdae490dd7cd7b6a59f91484f8fbbc93082ca149fcad147fa01")
    static let match = StoryMatch(id: StoryMatchID(1), title: "Tale", participants: [StoryParticipant(name: "Ann", wrote: true), StoryParticipant(name: "Bob")],
                                  places: 2, current: 1, text: "Once", createdAt: 1_700_000_000, lastTurnAt: 1_700_000_060, turnsTaken: 1,
                                  turnSeconds: 259_200, dueAt: 1_700_259_260)
    static let examples: [(String, [UInt8])] = [
        ("hello", StoryRequest.hello(name: "Ann", publicKey: key.publicKey, joinCode: "").encode(sequence: 0)),
        ("challenge", StoryReply.challenge(nonce: nonce).encode(sequence: 0)),
        ("proof", StoryRequest.proof(signature: signature, oldKey: []).encode(sequence: 1)),
        ("create", StoryRequest.create(others: ["Bob"], title: "Tale").encode(sequence: 2)),
        ("turn", StoryRequest.turn(StoryMatchID(1), text: "Once").encode(sequence: 3)),
        ("decline", StoryRequest.decline(StoryMatchID(1)).encode(sequence: 4)),
        ("welcome", StoryReply.welcome(version: 3, name: "Ann").encode(sequence: 1)),
        ("match", StoryReply.match(match).encode(sequence: 2)),
        ("refused", StoryReply.refused(.notYourTurn, "it is not your turn").encode(sequence: 3)),
    ]

    static func block(_ bytes: [UInt8]) -> String {
        func hex(_ slice: ArraySlice<UInt8>) -> String { slice.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }
        var lines = hex(bytes[0..<4]) + " " + hex(bytes[4..<8]) + " " + hex(bytes[8..<9]) + " " + hex(bytes[9..<13])
        if bytes.count > 13 { lines += "\n" + hex(bytes[13...]) }
        return "```story\n" + lines + "\n```"
    }

    @Test("docs/PROTOCOL.md shows each story example byte for byte")
    func documented() throws {
        let document = try Documents.original("PROTOCOL.md")
        for (name, bytes) in Self.examples {
            if ProcessInfo.processInfo.environment["SNAP_PRINT_STORY_EXAMPLES"] == "1" { print("\(name):\n\(Self.block(bytes))") }
            #expect(document.contains(Self.block(bytes)), "PROTOCOL.md lacks the story example \(name)")
        }
        #expect(document.components(separatedBy: "```story\n").count - 1 == Self.examples.count)
    }

    @Test("§16's proof example is Ann's signature of the documented sign-in message, which the document spells out")
    func signature() throws {
        let message = StoryWire.signInMessage(nonce: Self.nonce, name: "Ann", channelBinding: .unbound)
        if ProcessInfo.processInfo.environment["SNAP_PRINT_STORY_EXAMPLES"] == "1" {
            print("signature: " + Self.key.signature(for: message).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined())
        }
        #expect(StoryKeyChecks.live.verify(Self.key.publicKey, Self.signature, message))
        #expect(message == Array("snap story sign-in v2".utf8) + Self.nonce + [3] + Array("Ann".utf8) + Array(repeating: 0, count: 32))
        let document = try Documents.original("PROTOCOL.md")
        #expect(document.contains("`snap story sign-in v2`"))
        #expect(document.contains("| `0x89` | proof |") && document.contains("| `0xC6` | challenge |"))
        #expect(document.contains("version, **\(StoryWire.version)**"))
    }

    @Test("§16's message types: each in its table with its byte, the ranges the prose gives, the key and signature sizes")
    func messageTypes() throws {
        let document = try Documents.text("PROTOCOL.md")
        func hex(_ byte: UInt8) -> String { "0x" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true) }
        let requests = StoryRequest.Kind.allCases.map(\.rawValue), replies = StoryReply.Kind.allCases.map(\.rawValue)
        for kind in StoryRequest.Kind.allCases { #expect(document.contains("| `\(hex(kind.rawValue))` | \(kind) |"), "§16 lacks request \(kind)") }
        for kind in StoryReply.Kind.allCases { #expect(document.contains("| `\(hex(kind.rawValue))` | \(kind) |"), "§16 lacks reply \(kind)") }
        try StoryQuotesTests().expect("PROTOCOL.md", quotes: "requests `\(hex(requests.min()!))`–`\(hex(requests.max()!))`, replies "
                                      + "`\(hex(replies.min()!))`–`\(hex(replies.max()!))`")
        try StoryQuotesTests().expect("PROTOCOL.md", quotes: "the name, its \(StoryWire.publicKeyBytes)-byte public key")
        try StoryQuotesTests().expect("PROTOCOL.md", quotes: "The service answers `challenge`: a \(StoryWire.nonceBytes)-byte nonce")
        try StoryQuotesTests().expect("PROTOCOL.md", quotes: "The client sends `proof`: its \(StoryWire.signatureBytes)-byte Ed25519 signature")
        #expect(Self.key.publicKey.count == StoryWire.publicKeyBytes && Self.signature.count == StoryWire.signatureBytes)
    }

    @Test("§16's refusal reasons and budget are the service's")
    func documentedRefusals() throws {
        let document = try Documents.original("PROTOCOL.md")
        for reason in StoryRefusal.allCases {
            #expect(document.contains("| \(reason.rawValue) | `\(reason)` |"), "PROTOCOL.md lacks reason \(reason.rawValue) \(reason)")
        }
        // The prose's "`matchOver` (3)" and "reason 8 (`badRequest`)" in §16, as the codes are.
        let prose = try Documents.text("PROTOCOL.md")
        let story = try #require(prose.range(of: "## 16. The story service")).lowerBound
        let codes = Dictionary(uniqueKeysWithValues: StoryRefusal.allCases.map { ("\($0)", $0.rawValue) })
        var seen = 0
        for match in String(prose[story...]).matches(of: #/`([A-Za-z]+)` \(([0-9]+)/#) {
            guard let code = codes[String(match.1)] else { continue }
            #expect(Int(match.2) == Int(code), "PROTOCOL.md: `\(match.1)` (\(match.2)…, the service's is \(code)")
            seen += 1
        }
        for match in String(prose[story...]).matches(of: #/`([A-Za-z]+)` \(reason ([0-9]+)\)/#) {
            #expect(codes[String(match.1)].map(Int.init) == Int(match.2), "PROTOCOL.md: `\(match.1)` (reason \(match.2))")
            seen += 1
        }
        for match in String(prose[story...]).matches(of: #/reason ([0-9]+) \(`([A-Za-z]+)`\)/#) {
            #expect(codes[String(match.2)].map(Int.init) == Int(match.1), "PROTOCOL.md: reason \(match.1) (`\(match.2)`)")
            seen += 1
        }
        #expect(seen >= 3, "\(seen) codes in §16's prose")
        let limits = StoryServer.Limits()
        #expect(document.contains("Budget: a burst of \(limits.burst) requests, then \(Int(limits.perSecond)) a second"))
        #expect(document.contains("\"over budget: more than \(limits.burst) requests at once, or \(Int(limits.perSecond)) a second\""))
    }
}

/// The service's numbers and words that docs/PROTOCOL.md §16 and docs/STORY.md quote, as the
/// code has them. Line breaks do not matter: runs of white space compare as one space.
@Suite("Story documentation quotes the service", .blocksThreads)
struct StoryQuotesTests {
    static func document(_ name: String) throws -> String { try Documents.text(name) }

    static func oneLine(_ text: String) -> String { Documents.oneLine(text) }

    func expect(_ name: String, quotes text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try Self.document(name).contains(Self.oneLine(text)), "\(name) lacks: \(text)", sourceLocation: sourceLocation)
    }

    @Test("the refusal of an older client, in §16 and in STORY.md")
    func versionRefusal() throws {
        try expect("PROTOCOL.md", quotes: "\"\(StoryHost.versionRefusal(StoryWire.version - 1))\"")
        try expect("STORY.md", quotes: "\"\(StoryHost.versionRefusal(1))\"")
        #expect(StoryHost.versionRefusal(2).contains(" not 2: "))
        try expect("STORY.md", quotes: "(a snap of version 2, \"… not 2: …\")")
        try expect("PROTOCOL.md", quotes: "has its own version, **\(StoryWire.version)**")
    }

    @Test("§2's and §16's refusals over TCP: a plain client, a busy service; the sign-in deadline")
    func refusals() throws {
        guard case .refused(let reason, let words) = StoryServer.plainRefusalReply else { Issue.record("not a refusal"); return }
        try expect("PROTOCOL.md", quotes: "reason \(reason.rawValue) (`\(reason)`), \"\(words)\"")
        let connections = StoryServer.Limits().connections
        try expect("PROTOCOL.md", quotes: "| \(StoryRefusal.busy.rawValue) | `busy` | the service holds its maximum of connections "
                   + "(\(connections)): \"\(StoryServer.busyText(connections))\"")
        // Past the bound on refusals in words, a bare close: what the client says of it (StoryTLSRefusalTests).
        let bare = try #require(closedInHandshakeText("closed the connection").split(separator: "(").first)
        try expect("PROTOCOL.md", quotes: "past it, a bare close, which `snapcards story` reports as busy too "
                   + "(`… \(bare.trimmingCharacters(in: .whitespaces)) …`)")
        let seconds = StoryServer.Limits().helloTimeout.nanoseconds / 1_000_000_000
        try expect("PROTOCOL.md", quotes: "A connection that is not welcomed within \(seconds) s of connecting")
        try expect("PROTOCOL.md", quotes: "the \(seconds) s cover hello, challenge and proof together")
        let limits = StoryServer.Limits()
        try expect("STORY.md", quotes: "Limits: \(limits.connections) connections (one more is told the service is busy), signed in "
                   + "within \(seconds) s, and per connection a burst of \(limits.burst) requests then \(Int(limits.perSecond)) a second")
        try expect("PROTOCOL.md", quotes: "| \(StoryRefusal.signIn.rawValue) | `signIn` | any other refused sign-in: another version "
                   + "(in words naming the upgrade), an unusable name, an old key of sixteen zero bytes, a missing or wrong join code, "
                   + "not signed in within \(seconds) s")
    }

    @Test("the database's words and the rules' numbers, in STORY.md and §16")
    func wordsAndNumbers() throws {
        try expect("STORY.md", quotes: "\"\(StoryServer.unavailableWords)\"")
        try expect("PROTOCOL.md", quotes: "\"\(StoryServer.unavailableWords)\"")
        let schema = StorySchema.version
        let newer = StoryStoreError.newerSchema(found: schema + 1, supported: schema, where: "PLACE").description
        try expect("STORY.md", quotes: "(\"… \(newer.dropFirst("PLACE ".count))\")")
        let tooLong = StoryError.storyTooLong(bytes: 5000).description.replacingOccurrences(of: "5000", with: "N")
        try expect("STORY.md", quotes: "(\"\(tooLong)\")")
        // An older snap's key: what a seat token is, 16 bytes, and no other length.
        let sixteen = Array(repeating: UInt8(1), count: 16)
        #expect(SeatToken(bytes: sixteen) != nil && SeatToken(bytes: Array(sixteen.dropLast())) == nil && SeatToken(bytes: sixteen + [1]) == nil)
        try expect("STORY.md", quotes: "a player's identity was a secret \(sixteen.count)-byte key")
        // Two turns at once on PostgreSQL: "the other is told" the refusal's words up to its match.
        let notYourTurn = StoryError.notYourTurn(StoryMatchID(1), current: "Bob").description
        let told = try #require(notYourTurn.range(of: " in match 1").map { String(notYourTurn[..<$0.lowerBound]) }, "\(notYourTurn)")
        try expect("STORY.md", quotes: "one is accepted and the other is told \"\(told)\", never both")
        // Each second (the service's sweep) the matches out of time are looked for.
        #expect(StoryServer.defaultSweepInterval == .seconds(1))
        try expect("STORY.md", quotes: "Each second the service looks for matches whose current participant is out of time")
        let waits = PostgresStoryStore.Waits()
        try expect("STORY.md", quotes: "each request waits at most \(waits.connection.components.seconds) s for a connection")
        try expect("STORY.md", quotes: "(a request that hangs on a connection for \(waits.request.components.seconds) s has that connection closed")
        try expect("STORY.md", quotes: "A match has \(StoryRules.participants.lowerBound)–\(StoryRules.participants.upperBound) participants")
        try expect("STORY.md", quotes: "add up to \(StoryRules.maxTurnScalars) characters")
        try expect("STORY.md", quotes: "The story is UTF-8, at most \(StoryRules.maxBytes) bytes. From \(StoryRules.warningBytes) bytes")
        try expect("STORY.md", quotes: "(N counts bytes to \(StoryRules.finishBytes)). A turn that takes the story past \(StoryRules.finishBytes) bytes")
        try expect("STORY.md", quotes: "open a new one (\(StoryRules.automatchPlaces) places)")
        try expect("STORY.md", quotes: "\(StoryServer.defaultTurnSeconds / 3600) h unless its operator says otherwise")
        // --turn-deadline's default and examples, each a duration; a number without its unit is not.
        let examples = ["2s", "30m", "72h", "3d"]
        for example in examples { #expect((try? StoryDuration.parse(example).get()) != nil, "\(example)") }
        #expect((try? StoryDuration.parse("72").get()) == nil)
        #expect(try StoryDuration.parse("72h").get() == StoryServer.defaultTurnSeconds)
        try expect("STORY.md", quotes: "`--turn-deadline DURATION` (default `72h`; a whole number with `s`, `m`, `h` or `d`, such as "
                   + examples.map { "`\($0)`" }.joined(separator: ", ") + ")")
        #expect(StoryRules.missedTurnsToQuit == 3)
        try expect("STORY.md", quotes: "Whoever misses three of their turns in a row counts as having quit")
        try expect("PROTOCOL.md", quotes: "\(StoryServer.defaultTurnSeconds / 3600) h unless set")
        let body = StoryWire.maxBodyLength
        try expect("PROTOCOL.md", quotes: "A story frame body may be up to **\(body / 1000),\(String(format: "%03d", body % 1000))** bytes")
        try expect("PROTOCOL.md", quotes: "string title (0–\(StoryRules.maxTitleScalars) scalars), u8 count (0–\(StoryRules.participants.upperBound - 1))")
        try expect("PROTOCOL.md", quotes: "(1–\(StoryRules.participants.upperBound)), then per participant")
        try expect("PROTOCOL.md", quotes: "Rules (the \(StoryRules.maxTurnScalars)-scalar cap, the \(StoryRules.finishBytes)/\(StoryRules.maxBytes)-byte limits")
        try expect("PROTOCOL.md", quotes: "| \(StoryRefusal.storyTooLong.rawValue) | `storyTooLong` | the story would pass \(StoryRules.maxBytes) bytes |")
        try expect("PROTOCOL.md", quotes: "| `0xC4` | refused | u8 reason, string message (at most \(CloseMessage.maxBytes) bytes) |")
        #expect(CloseMessage.fitted(String(repeating: "a", count: 300)).utf8.count == CloseMessage.maxBytes)
        try expect("PROTOCOL.md", quotes: "The sign-in message is the \(StoryWire.signInContext.count) ASCII bytes `snap story sign-in v2`, "
                   + "the nonce (\(StoryWire.nonceBytes) bytes), the name (u8 length, UTF-8) and the **channel binding** "
                   + "(\(StoryChannelBinding.unbound.bytes.count) bytes)")
    }
}

func hexBytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    return stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(decoding: digits[$0..<($0 + 2)], as: UTF8.self), radix: 16) }
}
