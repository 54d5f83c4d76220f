import SnapBytes
import SnapEngine
import Testing

@testable import SnapProtocol

/// What a frame stream decoded to: every frame either decodes (in a direction) to a
/// message that re-encodes to the very same bytes, or throws a typed error.
struct StreamOutcome {
    var frames = 0
    var clientMessages = 0
    var hostMessages = 0
    /// Streams cut by a framing error.
    var frameErrors = 0
    /// Frames that decode in neither direction.
    var messageErrors = 0
    var mismatches: [String] = []
}

/// Decodes everything in `bytes` as a connection would, checking the re-encoding law.
func exercise(_ bytes: [UInt8], chunkSize: Int, into outcome: inout StreamOutcome) {
    var decoder = FrameDecoder()
    var start = 0
    while start < bytes.count {
        decoder.append(bytes[start..<min(start + chunkSize, bytes.count)])
        start += chunkSize
        while true {
            let frame: Frame
            do {
                guard let next = try decoder.nextFrame() else { break }
                frame = next
            } catch {
                outcome.frameErrors += 1
                return
            }
            outcome.frames += 1
            var decoded = false
            if let message = try? WireCodec.decodeClientMessage(frame) {
                decoded = true
                outcome.clientMessages += 1
                if WireCodec.encode(message, sequence: frame.sequence) != frame.bytes {
                    outcome.mismatches.append(hex(frame.bytes))
                }
            }
            if let message = try? WireCodec.decodeHostMessage(frame) {
                decoded = true
                outcome.hostMessages += 1
                if WireCodec.encode(message, sequence: frame.sequence) != frame.bytes {
                    outcome.mismatches.append(hex(frame.bytes))
                }
            }
            if !decoded { outcome.messageErrors += 1 }
        }
    }
}

@Suite("Robustness")
struct RobustnessTests {
    /// Bytes that make decoders stumble.
    static let interesting: [UInt8] = [0, 1, 2, 3, 4, 5, 0x33, 51, 52, 0x7F, 0x80, 0xC0, 0xED, 0xFE, 0xFF]

    /// A mutation of `frame`: a few bit flips, overwrites, insertions, deletions or a
    /// truncation; usually with the length prefix repaired so the mutation reaches the
    /// message decoder instead of failing at the frame layer.
    static func mutate(_ frame: [UInt8], _ random: inout SeededRandom) -> [UInt8] {
        var bytes = frame
        for _ in 0...random.below(3) {
            switch random.below(6) {
            case 0 where !bytes.isEmpty:
                bytes[random.below(bytes.count)] ^= 1 << UInt8(random.below(8))
            case 1 where !bytes.isEmpty:
                bytes[random.below(bytes.count)] = interesting[random.below(interesting.count)]
            case 2:
                let at = random.below(bytes.count + 1)
                let count = random.below(4) + 1
                bytes.insert(contentsOf: (0..<count).map { _ in UInt8(random.below(256)) }, at: at)
            case 3 where bytes.count > 1:
                bytes.remove(at: random.below(bytes.count))
            case 4:
                bytes = Array(bytes.prefix(random.below(bytes.count + 1)))
            default:
                // Edit the payload only, where most structure lives.
                if bytes.count > 13 {
                    bytes[13 + random.below(bytes.count - 13)] = UInt8(random.below(256))
                }
            }
        }
        if random.below(4) != 0, bytes.count >= 4 {
            let length = UInt32(bytes.count - 4)
            bytes.replaceSubrange(0..<4, with: bigEndian(length))
        }
        return bytes
    }

    @Test("30,000 random and mutated inputs: no trap; decoded means re-encodes identically")
    func randomInputs() throws {
        let fixtures = try Fixtures.all.map { try $0.bytes }
        var random = SeededRandom(seed: 0x5AA9)
        var outcome = StreamOutcome()
        for index in 0..<30_000 {
            let input: [UInt8]
            switch index % 4 {
            case 0:
                // Pure noise, sometimes behind a plausible header.
                var noise = (0..<random.below(48)).map { _ in UInt8(random.below(256)) }
                if random.below(2) == 0 {
                    let types: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88]
                    noise = bigEndian(UInt32(9 + noise.count)) + Frame.magic + [types[random.below(types.count)]]
                        + [0, 0, 0, 0] + noise
                }
                input = noise
            case 1, 2:
                input = Self.mutate(fixtures[random.below(fixtures.count)], &random)
            default:
                // Several frames back to back, one of them mutated.
                var stream: [UInt8] = []
                let bad = random.below(3)
                for position in 0..<3 {
                    let frame = fixtures[random.below(fixtures.count)]
                    stream += position == bad ? Self.mutate(frame, &random) : frame
                }
                input = stream
            }
            exercise(input, chunkSize: 1 + random.below(64), into: &outcome)
        }
        #expect(outcome.mismatches.isEmpty, "decoded but re-encoded differently: \(outcome.mismatches.prefix(5))")
        // The test means something only if all outcomes occur often.
        #expect(outcome.frameErrors > 5000)
        #expect(outcome.messageErrors > 5000)
        #expect(outcome.clientMessages > 1000)
        #expect(outcome.hostMessages > 5000)
    }
}
