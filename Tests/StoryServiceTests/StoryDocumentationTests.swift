import Foundation
import SnapProtocol
import StoryEngine
import Testing
@testable import StoryService

/// The byte examples in docs/PROTOCOL.md's story section are these messages, byte for byte.
/// (They are fenced as `story`, not `text`: the `text` blocks are Snap!'s fixtures.)
@Suite("Story protocol documentation")
struct StoryDocumentationTests {
    static let key = SeatToken(bytes: Array(1...16))!
    static let match = StoryMatch(id: StoryMatchID(1), title: "Tale", participants: [StoryParticipant(name: "Ann"), StoryParticipant(name: "Bob")],
                                  places: 2, current: 1, text: "Once", createdAt: 1_700_000_000, lastTurnAt: 1_700_000_060, turnsTaken: 1)
    static let examples: [(String, [UInt8])] = [
        ("hello", StoryRequest.hello(version: 1, name: "Ann", key: key.bytes, joinCode: "").encode(sequence: 0)),
        ("create", StoryRequest.create(others: ["Bob"], title: "Tale").encode(sequence: 1)),
        ("turn", StoryRequest.turn(StoryMatchID(1), text: "Once").encode(sequence: 2)),
        ("welcome", StoryReply.welcome(version: 1, name: "Ann").encode(sequence: 0)),
        ("match", StoryReply.match(match).encode(sequence: 1)),
        ("refused", StoryReply.refused(.notYourTurn, "it is not your turn").encode(sequence: 2)),
    ]

    static func block(_ bytes: [UInt8]) -> String {
        func hex(_ slice: ArraySlice<UInt8>) -> String { slice.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }
        var lines = hex(bytes[0..<4]) + " " + hex(bytes[4..<8]) + " " + hex(bytes[8..<9]) + " " + hex(bytes[9..<13])
        if bytes.count > 13 { lines += "\n" + hex(bytes[13...]) }
        return "```story\n" + lines + "\n```"
    }

    @Test("docs/PROTOCOL.md shows each story example byte for byte")
    func documented() throws {
        let url = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../../docs/PROTOCOL.md").standardized
        let document = try String(contentsOf: url, encoding: .utf8)
        for (name, bytes) in Self.examples {
            if ProcessInfo.processInfo.environment["SNAP_PRINT_STORY_EXAMPLES"] == "1" { print("\(name):\n\(Self.block(bytes))") }
            #expect(document.contains(Self.block(bytes)), "PROTOCOL.md lacks the story example \(name)")
        }
        #expect(document.components(separatedBy: "```story\n").count - 1 == Self.examples.count)
    }

    @Test("§16's refusal reasons and budget are the service's")
    func documentedRefusals() throws {
        let url = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../../docs/PROTOCOL.md").standardized
        let document = try String(contentsOf: url, encoding: .utf8)
        for reason in StoryRefusal.allCases {
            #expect(document.contains("| \(reason.rawValue) | `\(reason)` |"), "PROTOCOL.md lacks reason \(reason.rawValue) \(reason)")
        }
        let limits = StoryServer.Limits()
        #expect(document.contains("Budget: a burst of \(limits.burst) requests, then \(Int(limits.perSecond)) a second"))
        #expect(document.contains("\"over budget: more than \(limits.burst) requests at once, or \(Int(limits.perSecond)) a second\""))
    }
}
