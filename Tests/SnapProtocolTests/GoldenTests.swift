import Foundation
import SnapBytes
import SnapEngine
import SnapTestSupport
import Testing

@testable import SnapProtocol

/// The wire format, frozen: each message encodes to exactly the committed bytes, and the
/// committed bytes decode to exactly the message. An intended format change means new
/// fixtures (and a new protocol version); an accidental one fails here.
@Suite("Golden fixtures")
struct GoldenTests {
    @Test("encoding gives exactly the fixture's bytes", arguments: Fixtures.all)
    func encodesToFixture(fixture: Fixture) throws {
        let expected = try fixture.bytes
        let encoded = fixture.message.encoded(sequence: fixture.sequence)
        #expect(hex(encoded) == hex(expected))
    }

    @Test("the fixture decodes to exactly the message, and nothing else", arguments: Fixtures.all)
    func decodesFromFixture(fixture: Fixture) throws {
        var decoder = FrameDecoder()
        decoder.append(try fixture.bytes)
        let frame = try #require(try decoder.nextFrame())
        #expect(try decoder.nextFrame() == nil)
        #expect(decoder.bufferedByteCount == 0)
        #expect(frame.sequence == fixture.sequence)
        #expect(try fixture.message.decodeSameDirection(frame) == fixture.message)
        // Client and host types never overlap: the other direction refuses the frame.
        switch fixture.message {
        case .client: #expect(throws: ProtocolError.unknownMessageType(frame.type)) {
                try WireCodec.decodeHostMessage(frame)
            }
        case .host: #expect(throws: ProtocolError.unknownMessageType(frame.type)) {
                try WireCodec.decodeClientMessage(frame)
            }
        }
    }

    @Test("fixture files are lowercase hex, and there is one per listed fixture and no other")
    func fixtureFilesMatchTheList() throws {
        let directory = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        let names = Set(files.filter { $0.hasSuffix(".hex") }.map { String($0.dropLast(4)) })
        #expect(names == Set(Fixtures.all.map(\.name)))
        #expect(Fixtures.all.count == names.count, "two fixtures share a name")
    }

    @Test("every message type in both directions and every event tag has a fixture")
    func everyCaseCovered() throws {
        var clientTypes: Set<UInt8> = []
        var hostTypes: Set<UInt8> = []
        var eventTags: Set<UInt8> = []
        var sawHidden = false
        var sawShown = false
        for fixture in Fixtures.all {
            let frame = WireCodec.frame(for: fixture.message)
            switch fixture.message {
            case .client: clientTypes.insert(frame.type)
            case .host(.events(let events)):
                hostTypes.insert(frame.type)
                var writer = ByteWriter()
                for event in events {
                    writer = ByteWriter()
                    WireCodec.write(event, to: &writer)
                    eventTags.insert(writer.bytes[0])
                    switch event {
                    case .dealt(nil, _), .paid(nil, _, _), .handedOut(nil, _, _, _): sawHidden = true
                    case .dealt(.some, _), .paid(.some, _, _), .handedOut(.some, _, _, _): sawShown = true
                    default: break
                    }
                }
            case .host: hostTypes.insert(frame.type)
            }
        }
        #expect(clientTypes == Set(WireCodec.ClientType.allRawValues))
        #expect(hostTypes == Set(WireCodec.HostType.allRawValues))
        #expect(eventTags == Set(1...20))
        #expect(sawHidden && sawShown)
    }

    @Test("docs/PROTOCOL.md shows every fixture, byte for byte, and no other example")
    func documentationExamples() throws {
        let document = try Documents.original("PROTOCOL.md")
        for fixture in Fixtures.all {
            let block = "```text\n" + fixtureText(try fixture.bytes) + "```"
            #expect(document.contains(block), "PROTOCOL.md lacks the example \(fixture.name)")
        }
        #expect(document.components(separatedBy: "```text\n").count - 1 == Fixtures.all.count)
    }

    @Test("§10's budget table and its example refusal are MessageBudget's numbers")
    func documentedBudgets() throws {
        let document = try Documents.original("PROTOCOL.md")
        let table = try #require(document.range(of: "| message | burst | rate (per second) |"))
        let rows = document[table.upperBound...].split(separator: "\n").dropFirst().prefix { $0.hasPrefix("|") }
        var documented: [MessageBudget.Kind: (Int, Int)] = [:]
        for row in rows {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let rate = try #require(Int(cells[2].prefix { $0.isNumber }), "\(row)")
            for name in cells[0].split(separator: ",") {
                let kind = try #require(MessageBudget.Kind(rawValue: name.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: ["`"])))
                documented[kind] = (try #require(Int(cells[1])), rate)
            }
        }
        for kind in MessageBudget.Kind.allCases {
            let limits = MessageBudget.limits(kind)
            #expect(documented[kind]?.0 == limits.capacity && documented[kind]?.1 == limits.perSecond, "\(kind)")
        }
        #expect(document.contains("closing(protocolViolation, \"\(MessageBudget.overBudgetText(.turn))\")"))
    }

    @Test("§14's summary of the budgets is MessageBudget's numbers")
    func summarisedBudgets() throws {
        let document = try Documents.original("PROTOCOL.md")
        let summary = [MessageBudget.Kind.ready, .turn, .snap, .pong].map { kind in
            let limits = MessageBudget.limits(kind)
            return "`\(kind.rawValue)` \(limits.capacity) + \(limits.perSecond)/s"
        }.joined(separator: ", ")
        let summarised = document.contains("| client messages | per kind, the [budgets](#budgets): \(summary) |")
        #expect(summarised, "§14 should read \(summary)")
    }

    @Test("§14's limits on frames, names, closing words, events and join codes are the decoder's")
    func summarisedLimits() throws {
        let document = try Documents.original("PROTOCOL.md")
        let rows = [
            "| frame body (`length`) | \(Frame.minBodyLength)–\(Frame.maxBodyLength) bytes; a frame is at most "
                + "\(Frame.maxBodyLength + Frame.prefixLength) bytes with its prefix |",
            "| player name | 1–\(PlayerName.maxScalars) scalars, ≤ \(PlayerName.maxBytes) UTF-8 bytes, letters/digits/space/`-_.'`,",
            "| `closing` message | 0–\(CloseMessage.maxBytes) UTF-8 bytes, no `Cc` control characters |",
            "| `events` per message | 1–\(WireCodec.maxEventsPerBatch) (",
            "| `recycled` count | \(WireCodec.recycledRange.lowerBound)–\(WireCodec.recycledRange.upperBound) |",
            "| `snapCorrect` matching seats | \(WireCodec.matchingRange.lowerBound)–\(WireCodec.matchingRange.upperBound), distinct |",
            "| `collected` cards | \(WireCodec.collectedRange.lowerBound)–\(WireCodec.collectedRange.upperBound), distinct,",
            "| `hello` join code | 0–\(JoinCode.maxWireBytes) bytes of UTF-8 (a code itself is \(JoinCode.length) characters);",
        ]
        #expect(PlayerName.punctuation == Set("-_.'".unicodeScalars))
        for row in rows { #expect(document.contains(row), "§14 lacks \(row)") }
    }

    @Test("§8's table of close reasons: each reason once, with its value; §14 gives their range")
    func documentedCloseReasons() throws {
        let document = try Documents.original("PROTOCOL.md")
        let table = try #require(document.range(of: "| reason | value | meaning |"))
        let rows = document[table.upperBound...].split(separator: "\n").dropFirst().prefix { $0.hasPrefix("|") }
        let documented = try rows.map { row in
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            return (cells[0].trimmingCharacters(in: ["`"]), try #require(UInt8(cells[1]), "\(row)"))
        }
        #expect(documented.map(\.0) == CloseReason.allCases.map { "\($0)" })
        #expect(documented.map(\.1) == CloseReason.allCases.map(\.rawValue))
        let values = CloseReason.allCases.map(\.rawValue)
        #expect(document.contains("close reason \(values.min()!)–\(values.max()!)"))
    }

    @Test("§14's enums row: seats, cards, piles, leave reasons, roles and close reasons as the code numbers them; the examples' byte counts")
    func enumsAndExampleSizes() throws {
        /// "min–max" of the bytes `decode` accepts.
        func span(_ decode: (UInt8) -> Any?) -> String {
            let accepted = (UInt8.min...UInt8.max).filter { decode($0) != nil }
            return "\(accepted.min()!)–\(accepted.max()!)"
        }
        let cards = Card.fullDeck.map(\.id)
        let closes = CloseReason.allCases.map(\.rawValue)
        let row = "| enums | `seat` \(span { Seat(rawValue: $0) }), `card` \(cards.min()!)–\(cards.max()!) (`0xFF` only in `card?`), "
            + "pile \(span { PileKind(rawValue: $0) }), `bool` 0–1, leave reason \(span { LeaveReason(rawValue: $0) }), "
            + "close reason \(closes.min()!)–\(closes.max()!), role \(span { Hello.Role(rawValue: $0) }), snapshot phase 0–3 |"
        #expect(try Documents.quotes("PROTOCOL.md", row), "§14 should read: \(row)")
        // The examples' descriptions count their strings' bytes.
        for (text, count) in [("`Zoë O'Neil` (", "Zoë O'Neil"), ("host `Zoë` (", "Zoë"),
                              ("a protocol violation, \"sequence number 5 where 4 was expected\" (", "sequence number 5 where 4 was expected")] {
            #expect(try Documents.quotes("PROTOCOL.md", text + "\(count.utf8.count) bytes"), "\(text)\(count.utf8.count) bytes")
        }
    }

    @Test("§7's and §8's message headings carry their type bytes, §9's table its event tags")
    func messageTypesAndTags() throws {
        let document = try Documents.text("PROTOCOL.md")
        func hex(_ byte: UInt8) -> String { "0x" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true) }
        var headings = 0
        for value in UInt8.min...UInt8.max {
            for name in [WireCodec.ClientType(rawValue: value).map { "\($0)" }, WireCodec.HostType(rawValue: value).map { "\($0)" }].compactMap({ $0 }) {
                #expect(document.contains("### \(name) (\(hex(value)))"), "PROTOCOL.md lacks the heading \(name) (\(hex(value)))")
                headings += 1
            }
        }
        // And no heading for a type the code does not have (§16's story types are in tables).
        #expect(document.matches(of: #/### [A-Za-z]+ \(0x[0-9A-F]{2}\)/#).count == headings, "\(headings) message types")
        var tags: [UInt8] = []
        for value in UInt8.min...UInt8.max {
            guard let tag = WireCodec.EventTag(rawValue: value) else { continue }
            #expect(document.contains("| \(value) | `\(tag)` |"), "§9 lacks tag \(value) \(tag)")
            tags.append(value)
        }
        #expect(tags == Array(1...tags.max()!))
        #expect(document.contains("Tags 0 and \(tags.max()! + 1)–255 are errors."), "§9's unknown tags")
    }

    @Test("the prose's numbers of close reasons and events (\"`full` (1: …\", \"`absent` (18)\") are the codes'")
    func proseCodes() throws {
        let document = try Documents.text("PROTOCOL.md")
        let snap = try #require(document.range(of: "## 16. The story service")).lowerBound  // §16 has codes of its own
        var codes: [String: UInt8] = [:]
        for reason in CloseReason.allCases { codes["\(reason)"] = reason.rawValue }
        for value in UInt8.min...UInt8.max { if let tag = WireCodec.EventTag(rawValue: value) { codes["\(tag)"] = value } }
        var seen = 0
        for match in String(document[..<snap]).matches(of: #/`([A-Za-z]+)` \(([0-9]+)/#) {
            guard let code = codes[String(match.1)] else { continue }
            #expect(UInt8(match.2) == code, "PROTOCOL.md: `\(match.1)` (\(match.2)…, the code's is \(code)")
            seen += 1
        }
        #expect(seen >= 15, "\(seen) codes in the prose")
    }

    @Test("the frame sizes quoted in PROTOCOL.md §14")
    func documentedSizes() throws {
        let name = String(repeating: "\u{10400}", count: 16)  // 64 bytes
        let lobby = HostMessage.lobby((0..<4).map { LobbyPlayer(id: UInt8($0), name: name, ready: true) })
        let collected = HostMessage.events([.collected(cards: Card.fullDeck, from: .left, to: .top)])
        var game = Game(seats: Seat.allCases)
        let deal = try game.apply(.deal(seed: 1)).map(\.seen)
        let sizes = [lobby, collected, .events(deal)].map { WireCodec.encode($0, sequence: 0).count }
        let sentence = "a `lobby` of four 64-byte names is \(sizes[0]) bytes; an `events` message holding one `collected` of "
            + "52 cards is \(sizes[1]) bytes; a whole deal (`roundStarted` and 52 `dealt`) is \(sizes[2]) bytes."
        #expect(try Documents.quotes("PROTOCOL.md", sentence), "§14 should read: \(sentence)")
    }

    /// Run with SNAP_RECORD_FIXTURES=1 to (re)write the fixture files from the list above;
    /// then read every changed file against docs/PROTOCOL.md before committing it.
    @Test(
        "record fixtures", .enabled(if: ProcessInfo.processInfo.environment["SNAP_RECORD_FIXTURES"] == "1"))
    func recordFixtures() throws {
        let directory = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "Fixtures")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for fixture in Fixtures.all {
            let bytes = fixture.message.encoded(sequence: fixture.sequence)
            try fixtureText(bytes).write(
                to: directory.appending(path: fixture.name + ".hex"), atomically: true, encoding: .utf8)
        }
    }
}

extension WireCodec.ClientType {
    static var allRawValues: [UInt8] { (0...255).compactMap { Self(rawValue: $0)?.rawValue } }
}

extension WireCodec.HostType {
    static var allRawValues: [UInt8] { (0...255).compactMap { Self(rawValue: $0)?.rawValue } }
}

extension WireCodec {
    static func frame(for message: AnyMessage, sequence: UInt32 = 0) -> Frame {
        switch message {
        case .client(let message): frame(for: message, sequence: sequence)
        case .host(let message): frame(for: message, sequence: sequence)
        }
    }
}
