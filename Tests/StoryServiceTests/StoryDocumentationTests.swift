import Foundation
import SnapProtocol
import StoryEngine
import Testing
@testable import StoryService

/// The byte examples in docs/PROTOCOL.md's story section are these messages, byte for byte.
/// (They are fenced as `story`, not `text`: the `text` blocks are Snap!'s fixtures.)
@Suite("Story protocol documentation")
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
        let url = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../../docs/PROTOCOL.md").standardized
        let document = try String(contentsOf: url, encoding: .utf8)
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
        let url = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../../docs/PROTOCOL.md").standardized
        let document = try String(contentsOf: url, encoding: .utf8)
        #expect(document.contains("`snap story sign-in v2`"))
        #expect(document.contains("| `0x89` | proof |") && document.contains("| `0xC6` | challenge |"))
        #expect(document.contains("version, **\(StoryWire.version)**"))
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

func hexBytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    return stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(decoding: digits[$0..<($0 + 2)], as: UTF8.self), radix: 16) }
}
