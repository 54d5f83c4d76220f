// libFuzzer target for the story service's bytes (scripts/fuzz --target story): its
// messages (StoryRequest, StoryReply, as a server and a client receive them) and its
// journal records (StoryRecord, as `snapcards story` replays its journal). Built against
// the StoryProtocol module (StoryWire, StoryRecord, StoryHost), whole.
//
// Input: byte 0 is a frame's type, bytes 1… its payload; the whole input is also one
// journal record. Properties (a trap is a finding):
//   - nothing traps, hangs or overflows, and every error is a StoryWireError;
//   - decoding is deterministic (same value or same error twice);
//   - a decoded request, and a decoded record, re-encodes to exactly its bytes;
//   - a journal of a few good records and the input (twice) replays (StoryHost.replay,
//     StoryBook.apply) without trapping, and the same way twice;
//   - a decoded hello or proof goes through StoryHost's sign-in checks (checkHello,
//     signIn, with stand-in key checks: StoryHost is built without swift-crypto) without
//     trapping, and the same way twice;
//   - a decoded reply re-encodes to its bytes, except a refusal (whose code may be
//     unknown and whose message is fitted), which is stable after one round trip.

import SnapBytes
import StoryProtocol
import StoryEngine

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = inputBytes(data, size)
    guard let type = input.first else { return 0 }
    checkRecord(input)
    let payload = Array(input[1...])
    guard payload.count <= StoryWire.maxBodyLength - Frame.minBodyLength else { return 0 }
    let sequence = UInt32(input.count &* 2_654_435_761 % 1000)
    let frame = Frame(type: type, sequence: sequence, payload: payload)
    let bytes = frame.bytes(maxBodyLength: StoryWire.maxBodyLength)
    checkRequest(frame, bytes)
    checkReply(frame, bytes)
    return 0
}

/// Stand-ins for SHA-256 and Ed25519 (StoryKeyChecks.live is swift-crypto's): deterministic,
/// and a "signature" is valid when it starts with the message's first bytes.
let fuzzChecks = StoryKeyChecks(
    digest: { bytes in (0..<32).map { index in bytes.enumerated().reduce(UInt8(index)) { $0 &+ $1.element &* UInt8(truncatingIfNeeded: $1.offset &+ 1) } } },
    verify: { _, signature, message in signature.count == 64 && signature.prefix(8).elementsEqual(message.prefix(8)) })

private func checkSignIn(_ request: StoryRequest) {
    var host = StoryHost(checks: fuzzChecks)
    _ = host.replay([StoryRecord.oldKey(name: "Ann", key: SeatToken(bytes: Array(1...16))!).bytes,
                     StoryRecord.publicKey(name: "Bo", key: Array(repeating: 2, count: 32)).bytes])
    let message = StoryWire.signInMessage(nonce: Array(repeating: 7, count: 32), name: "Ann", channelBinding: .unbound)
    switch request {
    case .hello(let name, let publicKey, _):
        if host.checkHello(name: name, publicKey: publicKey) != host.checkHello(name: name, publicKey: publicKey) {
            fail("checkHello is not deterministic")
        }
    case .proof(let signature, let oldKey):
        for name in ["Ann", "Bo", "Cy"] {
            let first = host.signIn(name: name, publicKey: Array(repeating: 2, count: 32), signature: signature, oldKey: oldKey, message: message)
            let again = host.signIn(name: name, publicKey: Array(repeating: 2, count: 32), signature: signature, oldKey: oldKey, message: message)
            if first != again { fail("signIn is not deterministic") }
            if case .welcome(let record?) = first { host.register(record) }
        }
    default: break
    }
}

private func decodeRequest(_ frame: Frame) -> Result<StoryRequest, StoryWireError> {
    Result { () throws(StoryWireError) in try StoryRequest.decode(frame) }
}

private func decodeReply(_ frame: Frame) -> Result<StoryReply, StoryWireError> {
    Result { () throws(StoryWireError) in try StoryReply.decode(frame) }
}

private func checkRequest(_ frame: Frame, _ bytes: [UInt8]) {
    let first = decodeRequest(frame)
    if decodeRequest(frame) != first { fail("StoryRequest.decode is not deterministic for type \(frame.type)") }
    guard case .success(let request) = first else { return }
    if request.kind.rawValue != frame.type { fail("request \(request) decoded from type \(frame.type)") }
    if request.encode(sequence: frame.sequence) != bytes { fail("request \(request) re-encodes differently") }
    checkSignIn(request)
}

private func checkReply(_ frame: Frame, _ bytes: [UInt8]) {
    let first = decodeReply(frame)
    if decodeReply(frame) != first { fail("StoryReply.decode is not deterministic for type \(frame.type)") }
    guard case .success(let reply) = first else { return }
    if reply.kind.rawValue != frame.type { fail("reply \(reply) decoded from type \(frame.type)") }
    let again = reply.encode(sequence: frame.sequence)
    if case .refused = reply {
        // The code may have been unknown (read as badRequest) and the message is fitted.
        guard let round = try? StoryReply.decode(Frame(type: frame.type, sequence: frame.sequence, payload: Array(again[13...]))) else {
            fail("refusal \(reply) re-encodes to something that does not decode")
        }
        if round.encode(sequence: frame.sequence) != again { fail("refusal \(reply) is not stable after a round trip") }
    } else if again != bytes {
        fail("reply \(reply) re-encodes differently")
    }
}

private func checkRecord(_ bytes: [UInt8]) {
    let first = Result { () throws(StoryWireError) in try StoryRecord(bytes) }
    let second = Result { () throws(StoryWireError) in try StoryRecord(bytes) }
    if first != second { fail("StoryRecord decoding is not deterministic") }
    guard case .success(let record) = first else { return }
    if record.bytes != bytes { fail("record \(record) re-encodes differently") }
    let journal = [StoryRecord.command(.create(starter: "Ann", others: ["Bo", "Cy"], title: "T", at: 1)).bytes,
                   StoryRecord.command(.automatch(name: "Dee", at: 2)).bytes, bytes, bytes]
    var host = StoryHost(checks: fuzzChecks), again = StoryHost(checks: fuzzChecks)
    let problems = host.replay(journal)
    if again.replay(journal) != problems || again.book.matches != host.book.matches || again.keys != host.keys {
        fail("replaying \(record) is not deterministic")
    }
}

func fuzzSeeds() -> [(String, [UInt8])] {
    let key = SeatToken(bytes: Array(1...16))!
    let publicKey = Array(UInt8(33)...UInt8(64))
    let id = StoryMatchID(7)
    let match = StoryMatch(id: id, title: "A dark night",
                           participants: [StoryParticipant(name: "Ann", wrote: true, missed: 1), StoryParticipant(name: "Bo", quit: true, declined: true)],
                           places: 4, current: 0, text: "It was a dark night. Ünïcode ✓", createdAt: 1_700_000_000,
                           lastTurnAt: 1_700_000_100, turnsTaken: 3, turnSeconds: 3600, dueAt: 1_700_003_700, rematch: StoryMatchID(9))
    let requests: [StoryRequest] = [
        .hello(name: "Ann", publicKey: publicKey, joinCode: "ABCD-EFGH"),
        .hello(name: "Zed", publicKey: Array(repeating: 0, count: 32), joinCode: ""),
        .otherVersionHello(version: 1, rest: [3, 0x41, 0x6E, 0x6E] + key.bytes + [0]),
        .proof(signature: Array(repeating: 0x73, count: 64), oldKey: []),
        .proof(signature: Array(repeating: 0x73, count: 64), oldKey: key.bytes),
        .create(others: ["Bo", "Cy"], title: "A title"), .automatch, .list, .show(id),
        .turn(id, text: "Once upon a time…"), .quit(id), .watch, .ping(42),
        .create(others: ["Bo"], title: "", turnSeconds: 7200), .decline(id), .rematch(id),
    ]
    let replies: [StoryReply] = [
        .challenge(nonce: Array(repeating: 0x5C, count: 32)), .welcome(version: StoryWire.version, name: "Ann"), .match(match), .update(match), .listed(count: 3),
        .refused(.notYourTurn, "not your turn"), .pong(42),
    ]
    let records: [StoryRecord] = [
        .oldKey(name: "Ann", key: key),
        .oldKeyDigest(name: "Bo", digest: Array(repeating: 0xD1, count: 32)),
        .publicKey(name: "Cy", key: publicKey),
        .command(.create(starter: "Ann", others: ["Bo"], title: "T", at: 1)),
        .command(.automatch(name: "Cy", at: 2)),
        .command(.turn(id, name: "Ann", text: "Hello ✓", at: 3)),
        .command(.quit(id, name: "Bo", at: 4)),
        .command(.create(starter: "Ann", others: ["Bo"], title: "T", at: 5, turnSeconds: 3600)),
        .command(.automatch(name: "Cy", at: 6, turnSeconds: 60)),
        .command(.decline(id, name: "Bo", at: 7)),
        .command(.timeout(id, at: 8)),
        .command(.rematch(id, name: "Ann", at: 9)),
    ]
    // A message seed is its frame's type and payload (the header's 13 bytes dropped).
    var seeds: [(String, [UInt8])] = []
    for (index, request) in requests.enumerated() {
        let bytes = request.encode(sequence: 0)
        seeds.append(("request-\(index)", [bytes[8]] + bytes[13...]))
    }
    for (index, reply) in replies.enumerated() {
        let bytes = reply.encode(sequence: 0)
        seeds.append(("reply-\(index)", [bytes[8]] + bytes[13...]))
    }
    for (index, record) in records.enumerated() { seeds.append(("record-\(index)", record.bytes)) }
    return seeds
}
