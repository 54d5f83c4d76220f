import SnapBytes
import SnapEngine
import Testing

@testable import SnapProtocol

/// Framing tested hard: every chunking of a long stream gives the same frames, every
/// prefix of a frame asks for more, and bad prefixes fail as early as they can.
@Suite("Frame decoder")
struct FrameDecoderTests {
    /// Every fixture frame, then every fixture again with new sequence numbers.
    static let stream: (bytes: [UInt8], frames: [Frame]) = {
        var bytes: [UInt8] = []
        var frames: [Frame] = []
        for (index, fixture) in (Fixtures.all + Fixtures.all).enumerated() {
            let frame = WireCodec.frame(for: fixture.message, sequence: UInt32(index))
            frames.append(frame)
            bytes += frame.bytes
        }
        return (bytes, frames)
    }()

    /// Feeds `bytes` in chunks of `size` and collects every frame.
    static func decode(_ bytes: [UInt8], chunkSize size: Int) throws(ProtocolError) -> [Frame] {
        var decoder = FrameDecoder()
        var frames: [Frame] = []
        var start = 0
        while start < bytes.count {
            decoder.append(bytes[start..<min(start + size, bytes.count)])
            start += size
            while let frame = try decoder.nextFrame() { frames.append(frame) }
        }
        precondition(decoder.bufferedByteCount == 0)
        return frames
    }

    @Test("all frames in one append")
    func oneAppend() throws {
        let (bytes, frames) = Self.stream
        #expect(try Self.decode(bytes, chunkSize: bytes.count) == frames)
    }

    @Test("a byte at a time")
    func byteAtATime() throws {
        let (bytes, frames) = Self.stream
        #expect(try Self.decode(bytes, chunkSize: 1) == frames)
    }

    @Test("every chunk size from 1 to the whole stream gives the same frames")
    func everyChunkSize() throws {
        let (bytes, frames) = Self.stream
        var mismatches: [Int] = []
        for size in 1...bytes.count where try Self.decode(bytes, chunkSize: size) != frames {
            mismatches.append(size)
        }
        #expect(mismatches.isEmpty, "chunk sizes that went wrong: \(mismatches)")
        #expect(bytes.count > 1000)
    }

    @Test("irregular chunks, and appends of empty chunks, change nothing")
    func irregularChunks() throws {
        let (bytes, frames) = Self.stream
        var random = SeededRandom(seed: 11)
        for _ in 0..<50 {
            var decoder = FrameDecoder()
            var decoded: [Frame] = []
            var start = 0
            while start < bytes.count {
                let size = random.below(3) == 0 ? 0 : random.below(40) + 1
                decoder.append(bytes[start..<min(start + size, bytes.count)])
                start += size
                while let frame = try decoder.nextFrame() { decoded.append(frame) }
            }
            #expect(decoded == frames)
        }
    }

    @Test("a large buffered backlog is consumed with compaction, frame by frame")
    func backlog() throws {
        let frame = Frame(type: 0x85, sequence: 0, payload: Array(repeating: 0xAB, count: 1000))
        let bytes = frame.bytes
        var decoder = FrameDecoder()
        var count = 0
        // Keep up to three frames and a half buffered across many appends.
        for round in 0..<200 {
            decoder.append(bytes[0..<500])
            decoder.append(bytes[500...])
            decoder.append(bytes)
            if round.isMultiple(of: 2), let next = try decoder.nextFrame() {
                #expect(next == frame)
                count += 1
            }
            while decoder.bufferedByteCount > 3 * bytes.count / 2, let next = try decoder.nextFrame() {
                #expect(next == frame)
                count += 1
            }
        }
        while let next = try decoder.nextFrame() {
            #expect(next == frame)
            count += 1
        }
        #expect(count == 400)
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test("every proper prefix of a frame asks for more, then the rest completes it", arguments: Fixtures.all)
    func truncatedFrames(fixture: Fixture) throws {
        let bytes = try fixture.bytes
        let expected = WireCodec.frame(for: fixture.message, sequence: fixture.sequence)
        for cut in 0..<bytes.count {
            var decoder = FrameDecoder()
            decoder.append(bytes[..<cut])
            #expect(try decoder.nextFrame() == nil, "\(fixture.name) cut at \(cut)")
            #expect(try decoder.nextFrame() == nil, "\(fixture.name) cut at \(cut), asked twice")
            decoder.append(bytes[cut...])
            #expect(try decoder.nextFrame() == expected)
            #expect(try decoder.nextFrame() == nil)
        }
    }

    @Test("a length over 4096 fails as soon as the four length bytes are in")
    func oversizeLength() throws {
        for length: UInt32 in [4097, 4098, 65536, 0x7FFF_FFFF, 0xFFFF_FFFF] {
            let prefix = bigEndian(length)
            var decoder = FrameDecoder()
            decoder.append(prefix[0..<3])
            #expect(try decoder.nextFrame() == nil)
            decoder.append(prefix[3...])
            #expect(throws: ProtocolError.frameTooLong(length: length)) { try decoder.nextFrame() }
        }
    }

    @Test("a length under 9 fails as soon as the four length bytes are in")
    func undersizeLength() {
        for length: UInt32 in [0, 1, 4, 8] {
            var decoder = FrameDecoder()
            decoder.append(bigEndian(length))
            #expect(throws: ProtocolError.frameTooShort(length: length)) { try decoder.nextFrame() }
        }
    }

    @Test("the largest frame, 4096 bytes of body, is accepted")
    func largestFrame() throws {
        let frame = Frame(type: 0x42, sequence: 9, payload: Array(repeating: 7, count: Frame.maxPayloadLength))
        #expect(frame.bytes.count == 4 + 4096)
        #expect(Array(frame.bytes[0..<4]) == [0, 0, 0x10, 0x00])
        #expect(try Self.decode(frame.bytes, chunkSize: 1000) == [frame])
    }

    @Test("the smallest frame, 9 bytes of body, is accepted")
    func smallestFrame() throws {
        let bytes: [UInt8] = [0, 0, 0, 9, 0x53, 0x4E, 0x41, 0x50, 0x03, 0, 0, 0, 5]
        #expect(try Self.decode(bytes, chunkSize: 1) == [Frame(type: 3, sequence: 5)])
    }

    @Test("bad magic fails at the first wrong byte, before the body is complete")
    func badMagic() throws {
        let good: [UInt8] = [0, 0, 0, 20, 0x53, 0x4E, 0x41, 0x50]
        for position in 4..<8 {
            var bytes = good
            bytes[position] ^= 0x20  // "snap" is not "SNAP"
            var decoder = FrameDecoder()
            decoder.append(bytes[..<position])
            #expect(try decoder.nextFrame() == nil)
            decoder.append([bytes[position]])
            #expect(throws: ProtocolError.badMagic) { try decoder.nextFrame() }
        }
    }

    @Test("bytes that are no frame at all fail at once: HTTP, TLS, text")
    func notTheProtocol() {
        for garbage in ["GET / HTTP/1.1\r\n", "\u{16}\u{03}\u{01}\u{02}\u{00}", "hello\n"] {
            var decoder = FrameDecoder()
            decoder.append(Array(garbage.utf8))
            #expect(throws: ProtocolError.self) { try decoder.nextFrame() }
        }
    }

    @Test("after an error the decoder stays failed and ignores new bytes")
    func spentAfterError() throws {
        var decoder = FrameDecoder()
        decoder.append([0, 0, 0x20, 0])
        #expect(throws: ProtocolError.frameTooLong(length: 0x2000)) { try decoder.nextFrame() }
        #expect(decoder.hasFailed)
        decoder.append(try Fixtures.all[0].bytes)
        #expect(decoder.bufferedByteCount == 0)
        #expect(throws: ProtocolError.frameTooLong(length: 0x2000)) { try decoder.nextFrame() }
    }

    @Test("a good frame before a bad one is delivered, then the error")
    func goodThenBad() throws {
        let good = WireCodec.encode(ClientMessage.ready, sequence: 0)
        var decoder = FrameDecoder()
        decoder.append(good + [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(try decoder.nextFrame() == Frame(type: 2, sequence: 0))
        #expect(throws: ProtocolError.frameTooLong(length: 0xFFFF_FFFF)) { try decoder.nextFrame() }
    }
}

func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
}
