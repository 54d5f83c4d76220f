// libFuzzer entry point for the wire decoder. Built by scripts/fuzz against the
// SnapEngine, SnapBytes and SnapProtocol modules, each compiled whole; not part of the
// SwiftPM package.
//
// Checks use fatalError, not precondition, because -O drops precondition messages.
//
// Input: byte 0 chooses how the rest is chunked into `FrameDecoder.append` calls;
// bytes 1… are the stream. Every frame is decoded both as a client and as a host
// message. Properties checked (a trap is a finding):
//   - nothing traps, hangs or overflows (ASan watches memory);
//   - the frames' bytes, concatenated, are exactly the start of the stream;
//   - a frame that decodes to a message re-encodes to exactly the frame's bytes;
//   - once the decoder throws, it keeps throwing the same error.

import SnapBytes
import SnapProtocol
import SnapEngine

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let input = UnsafeBufferPointer(start: data, count: size)
    let chunking = input[0]
    let stream = Array(input[1...])

    var decoder = FrameDecoder()
    var fed = 0
    var consumed = 0
    var lcg = UInt32(chunking) &* 2_654_435_761 | 1
    while fed < stream.count {
        // 0: everything at once; 1–127: fixed chunks of that size; 128–255: varying 1–16.
        let chunk: Int
        switch chunking {
        case 0: chunk = stream.count
        case 1...127: chunk = Int(chunking)
        default:
            lcg = lcg &* 1_103_515_245 &+ 12345
            chunk = Int(lcg >> 16) % 16 + 1
        }
        let end = min(fed + chunk, stream.count)
        decoder.append(stream[fed..<end])
        fed = end
        while true {
            let frame: Frame
            do {
                guard let next = try decoder.nextFrame() else { break }
                frame = next
            } catch {
                // A spent decoder must stay spent, with the same error.
                decoder.append(stream[0..<min(stream.count, 16)])
                do {
                    _ = try decoder.nextFrame()
                    fatalError("decoder recovered after \(error)")
                } catch let again {
                    if again != error { fatalError("decoder changed its error: \(error) then \(again)") }
                }
                return 0
            }
            let bytes = frame.bytes
            let end = consumed + bytes.count
            if end > stream.count || !stream[consumed..<end].elementsEqual(bytes) {
                fatalError("frame bytes differ from the stream at offset \(consumed)")
            }
            consumed += bytes.count
            check(frame, bytes)
        }
    }
    return 0
}

private func check(_ frame: Frame, _ bytes: [UInt8]) {
    if let message = try? WireCodec.decodeClientMessage(frame) {
        let again = WireCodec.encode(message, sequence: frame.sequence)
        if again != bytes { fatalError("client message \(message) re-encodes differently") }
    }
    if let message = try? WireCodec.decodeHostMessage(frame) {
        let again = WireCodec.encode(message, sequence: frame.sequence)
        if again != bytes { fatalError("host message \(message) re-encodes differently") }
    }
}
