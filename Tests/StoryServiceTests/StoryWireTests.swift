import Foundation
import SnapJournal
import SnapBytes
import StoryEngine
import SnapTestSupport
import Testing
@testable import StoryLink
@testable import StoryProtocol
@testable import StoryService
@testable import StoryStores

@Suite("Story service messages and host", .blocksThreads)
struct StoryWireTests {
    let key = StoryKey(privateKeyBytes: Array(1...32))!
    let otherKey = StoryKey(privateKeyBytes: Array(repeating: 7, count: 32))!
    let oldKey = SeatToken(bytes: Array(1...16))!
    let nonce = [UInt8](repeating: 0x42, count: 32)

    func frames(_ bytes: [UInt8]) throws -> [Frame] {
        var decoder = FrameDecoder(maxBodyLength: StoryWire.maxBodyLength)
        decoder.append(bytes)
        var frames: [Frame] = []
        while let frame = try decoder.nextFrame(failing: StoryWireError.self) { frames.append(frame) }
        return frames
    }

    @Test("every request and reply survives the wire, a full 4096-byte story included")
    func roundTrip() throws {
        let requests: [StoryRequest] = [
            .hello(name: "Ann", publicKey: key.publicKey, joinCode: "ABCDEF"),
            .otherVersionHello(version: 1, rest: [3, 0x41, 0x6E, 0x6E] + oldKey.bytes + [0]), .otherVersionHello(version: 2, rest: []),
            .proof(signature: Array(repeating: 9, count: 64), oldKey: []), .proof(signature: Array(0..<64), oldKey: oldKey.bytes),
            .create(others: ["Bob", "Cy"], title: "The dragon"), .create(others: ["Bob"], title: "", turnSeconds: 7200),
            .decline(StoryMatchID(6)), .rematch(StoryMatchID(7)), .automatch, .list, .show(StoryMatchID(9)), .turn(StoryMatchID(3), text: "Once upon a time 🐉"),
            .quit(StoryMatchID(4)), .watch, .ping(42),
        ]
        for (index, request) in requests.enumerated() {
            let decoded = try frames(request.encode(sequence: UInt32(index)))
            #expect(decoded.count == 1 && decoded[0].sequence == UInt32(index))
            #expect(try StoryRequest.decode(decoded[0]) == request)
        }
        let names = (1...16).map { "Player \($0)" }
        let full = StoryMatch(id: StoryMatchID(5), title: String(repeating: "t", count: 60),
                              participants: names.map { StoryParticipant(name: $0, quit: $0.hasSuffix("3"), declined: $0.hasSuffix("13"),
                                                                         wrote: $0.hasSuffix("1"), missed: $0.count) },
                              places: 16, current: 15, text: String(repeating: "é", count: 2048), createdAt: 1, lastTurnAt: 2, turnsTaken: 20,
                              turnSeconds: 72 * 3600, dueAt: 3, rematch: StoryMatchID(9))
        #expect(try StoryWire.match(from: StoryWire.bytes(of: full)) == full)
        let replies: [StoryReply] = [
            .challenge(nonce: Array(0..<32)), .welcome(version: 2, name: "Ann"), .match(full), .update(full), .listed(count: 3),
            .refused(.notYourTurn, "it is not your turn"), .pong(7),
        ]
        for reply in replies {
            #expect(try StoryReply.decode(try frames(reply.encode(sequence: 0))[0]) == reply)
        }
    }

    @Test("a version 1 hello decodes as another version's, to be refused in words; a version 3 one needs a 32-byte public key")
    func helloVersions() throws {
        // Version 1's layout: u16 1, "Ann", a 16-byte key, an empty join code.
        let old: [UInt8] = [0, 1, 3, 0x41, 0x6E, 0x6E] + oldKey.bytes + [0]
        #expect(try StoryRequest.decode(Frame(type: 0x80, sequence: 0, payload: old))
                == .otherVersionHello(version: 1, rest: Array(old[2...])))
        #expect(StoryHost.versionRefusal(1).contains("speaks version 3"))
        #expect(StoryHost.versionRefusal(2).contains("upgrade snap"))
        #expect(StoryHost.versionRefusal(4).contains("older than your snap"))
        let short: [UInt8] = [0, 3, 3, 0x41, 0x6E, 0x6E] + Array(repeating: 1, count: 31)
        #expect(throws: StoryWireError.truncatedPayload(type: 0x80)) { try StoryRequest.decode(Frame(type: 0x80, sequence: 0, payload: short)) }
        #expect(throws: StoryWireError.truncatedPayload(type: 0x80)) { try StoryRequest.decode(Frame(type: 0x80, sequence: 0, payload: [0])) }
        // What cannot be sent is refused before it is sent.
        #expect(StoryRequest.hello(name: "Ann", publicKey: [1, 2], joinCode: "").problem?.refusal == .signIn)
    }

    @Test("a proof is a 64-byte signature and an old key of 0 or 16 bytes; a challenge is a 32-byte nonce; any other length is malformed")
    func proofLengths() throws {
        let signature = [UInt8](repeating: 5, count: 64)
        #expect(try StoryRequest.decode(Frame(type: 0x89, sequence: 0, payload: signature + [0])) == .proof(signature: signature, oldKey: []))
        #expect(try StoryRequest.decode(Frame(type: 0x89, sequence: 0, payload: signature + [16] + oldKey.bytes))
                == .proof(signature: signature, oldKey: oldKey.bytes))
        for length: UInt8 in [1, 5, 15, 17, 32, 255] {
            #expect(throws: StoryWireError.oldKeyLength(Int(length))) {
                try StoryRequest.decode(Frame(type: 0x89, sequence: 0, payload: signature + [length] + Array(repeating: 1, count: Int(length))))
            }
        }
        #expect(throws: StoryWireError.truncatedPayload(type: 0x89)) { try StoryRequest.decode(Frame(type: 0x89, sequence: 0, payload: Array(signature.prefix(63)))) }
        #expect(throws: StoryWireError.truncatedPayload(type: 0x89)) { try StoryRequest.decode(Frame(type: 0x89, sequence: 0, payload: signature)) }
        #expect(throws: StoryWireError.truncatedPayload(type: 0x89)) {
            try StoryRequest.decode(Frame(type: 0x89, sequence: 0, payload: signature + [16] + Array(oldKey.bytes.prefix(15))))
        }
        #expect(throws: StoryWireError.trailingBytes(type: 0x89, count: 1)) { try StoryRequest.decode(Frame(type: 0x89, sequence: 0, payload: signature + [0, 0])) }
        #expect(throws: StoryWireError.truncatedPayload(type: 0xC6)) { try StoryReply.decode(Frame(type: 0xC6, sequence: 0, payload: Array(nonce.prefix(31)))) }
        #expect(throws: StoryWireError.trailingBytes(type: 0xC6, count: 1)) { try StoryReply.decode(Frame(type: 0xC6, sequence: 0, payload: nonce + [1])) }
        #expect(StoryRequest.proof(signature: Array(signature.prefix(10)), oldKey: []).problem?.refusal == .signIn)
        #expect(StoryRequest.proof(signature: signature, oldKey: [1, 2, 3]).problem?.refusal == .signIn)
    }

    @Test("malformed requests are errors, never traps: unknown type, truncated, oversized text, trailing bytes")
    func malformed() throws {
        #expect(throws: StoryWireError.unknownMessageType(0x01)) { try StoryRequest.decode(Frame(type: 0x01, sequence: 0)) }
        #expect(throws: StoryWireError.unknownMessageType(0x8C)) { try StoryRequest.decode(Frame(type: 0x8C, sequence: 0)) }
        #expect(throws: StoryWireError.unknownMessageType(0xC7)) { try StoryReply.decode(Frame(type: 0xC7, sequence: 0)) }
        #expect(throws: StoryWireError.truncatedPayload(type: 0x85)) { try StoryRequest.decode(Frame(type: 0x85, sequence: 0, payload: [0, 0])) }
        let long: [UInt8] = [0, 0, 0, 1, 0x03, 0xE9] + Array(repeating: 0x61, count: 1001)
        #expect(throws: StoryWireError.countOutOfRange(.textBytes, count: 1001, allowed: 0...1000)) {
            try StoryRequest.decode(Frame(type: 0x85, sequence: 0, payload: long))
        }
        #expect(throws: StoryWireError.trailingBytes(type: 0x82, count: 1)) { try StoryRequest.decode(Frame(type: 0x82, sequence: 0, payload: [1])) }
        #expect(throws: StoryWireError.invalidUTF8) {
            try StoryRequest.decode(Frame(type: 0x85, sequence: 0, payload: [0, 0, 0, 1, 0, 2, 0xC3, 0x28]))
        }
        // Story frames may be longer than Snap!'s 4096, but not without limit.
        var decoder = FrameDecoder(maxBodyLength: StoryWire.maxBodyLength)
        decoder.append([0, 0, 0x40, 0x01])
        #expect(throws: StoryWireError.frameTooLong(length: 16_385)) { try decoder.nextFrame(failing: StoryWireError.self) }
    }

    /// `key`'s proof for `name` over `nonce` and `binding`, as the host checks it.
    func signIn(_ host: StoryHost, _ name: String, _ key: StoryKey, oldKey: SeatToken? = nil,
                signedWith signer: StoryKey? = nil, binding: StoryChannelBinding = .unbound, serviceBinding: StoryChannelBinding = .unbound,
                nonce signedNonce: [UInt8]? = nil) -> StoryHost.SignIn {
        guard case .proof(let signature, let old) = (signer ?? key).proof(nonce: signedNonce ?? nonce, name: name, channelBinding: binding, oldKey: oldKey) else {
            return .refused(.badRequest, "no proof")
        }
        return host.signIn(name: name, publicKey: key.publicKey, signature: signature, oldKey: old,
                           message: StoryWire.signInMessage(nonce: nonce, name: name, channelBinding: serviceBinding))
    }

    @Test("journal records replay to the same matches and keys")
    func replay() throws {
        var host = StoryHost(checks: .live)
        guard case .welcome(let register?) = signIn(host, "Ann", key) else { Issue.record("no welcome"); return }
        #expect(register == .publicKey(name: "Ann", key: key.publicKey))
        host.register(register)
        var records = [register.bytes, StoryRecord.oldKey(name: "Bob", key: oldKey).bytes,
                       StoryRecord.oldKeyDigest(name: "Cy", digest: Array(repeating: 3, count: 32)).bytes]
        for request in [StoryRequest.create(others: ["Bob"], title: "T"), .automatch, .turn(StoryMatchID(1), text: "Hello"), .quit(StoryMatchID(2))] {
            let (record, _) = try host.apply(request, by: "Ann", at: 100).get()
            records.append(record.bytes)
        }
        var copy = StoryHost(checks: .live)
        #expect(copy.replay(records).isEmpty)
        #expect(copy.book.matches == host.book.matches)
        #expect(copy.keys["Ann"] == .publicKey(key.publicKey))
        // A version 1 key is held as its digest only, whether the journal kept it raw or not.
        #expect(copy.keys["Bob"] == .oldKeyDigest(StoryKeyChecks.live.digest(oldKey.bytes)))
        #expect(copy.keys["Cy"] == .oldKeyDigest(Array(repeating: 3, count: 32)))
        #expect(copy.book[StoryMatchID(1)]!.text == "Hello")
        for record in records { #expect(try StoryRecord(record).bytes == record) }
    }

    @Test("a name's first public key is registered; another key, a bad signature, another nonce or channel are refused with wrongKey")
    func identity() throws {
        var host = StoryHost(checks: .live)
        guard case .welcome(let register?) = signIn(host, "Ann", key) else { Issue.record("no welcome"); return }
        host.register(register)
        #expect(signIn(host, "Ann", key) == .welcome(register: nil))
        // Another public key for Ann: refused at the hello already, and at the proof.
        #expect(host.checkHello(name: "Ann", publicKey: otherKey.publicKey)?.refusal == .wrongKey)
        guard case .refused(.wrongKey, let message) = signIn(host, "Ann", otherKey) else { Issue.record("another key was let in"); return }
        #expect(message.contains("belongs to someone else"))
        // Ann's public key with a signature by someone else, over another nonce, over another channel.
        let tls = StoryChannelBinding.tlsCertificate(sha256: Array(repeating: 0xAB, count: 32))!
        for refused in [signIn(host, "Ann", key, signedWith: otherKey), signIn(host, "Ann", key, nonce: Array(repeating: 1, count: 32)),
                        signIn(host, "Ann", key, binding: tls), signIn(host, "Ann", key, serviceBinding: tls),
                        signIn(host, "Bob", key, signedWith: otherKey)] {
            guard case .refused(.wrongKey, let words) = refused else { Issue.record("a bad proof was let in: \(refused)"); continue }
            #expect(words.contains("the proof does not match"))
        }
        #expect(signIn(host, "Ann", key, binding: tls, serviceBinding: tls) == .welcome(register: nil))
        #expect(host.checkHello(name: "  ", publicKey: key.publicKey)?.refusal == .signIn)
        // Acting is always as the signed-in name: a turn by Bob in Ann's match is Bob's.
        _ = try host.apply(.create(others: ["Bob"], title: ""), by: "Ann", at: 1).get()
        guard case .failure(let error) = host.apply(.turn(StoryMatchID(1), text: "x"), by: "Bob", at: 2) else {
            Issue.record("Bob wrote in Ann's turn"); return
        }
        #expect(error.refusal == .notYourTurn)
    }

    @Test("a version 1 name moves to a key pair once, with its old key; then the old key opens nothing")
    func migration() throws {
        var host = StoryHost(checks: .live)
        _ = host.replay([StoryRecord.oldKey(name: "Ann", key: oldKey).bytes])
        // Without the old key, or with another, the name is not moved.
        guard case .refused(.wrongKey, let words) = signIn(host, "Ann", key) else { Issue.record("moved without the old key"); return }
        #expect(words.contains("registered by an older snap"))
        guard case .refused(.wrongKey, _) = signIn(host, "Ann", key, oldKey: SeatToken(bytes: Array(2...17))!) else {
            Issue.record("moved with another old key"); return
        }
        guard case .refused(.signIn, _) = host.signIn(name: "Ann", publicKey: key.publicKey, signature: key.signature(
            for: StoryWire.signInMessage(nonce: nonce, name: "Ann", channelBinding: .unbound)), oldKey: Array(repeating: 0, count: 16),
            message: StoryWire.signInMessage(nonce: nonce, name: "Ann", channelBinding: .unbound)) else {
            Issue.record("a zero old key was taken"); return
        }
        // The old key needs a good proof of the new key too.
        guard case .refused(.wrongKey, _) = signIn(host, "Ann", key, oldKey: oldKey, signedWith: otherKey) else {
            Issue.record("moved with a bad proof"); return
        }
        guard case .welcome(let moved?) = signIn(host, "Ann", key, oldKey: oldKey) else { Issue.record("not moved"); return }
        #expect(moved == .publicKey(name: "Ann", key: key.publicKey))
        host.register(moved)
        #expect(host.keys["Ann"] == .publicKey(key.publicKey))
        // The old key is forgotten: with another key pair it opens nothing; the new key alone signs in.
        guard case .refused(.wrongKey, _) = signIn(host, "Ann", otherKey, oldKey: oldKey) else { Issue.record("the old key still works"); return }
        #expect(signIn(host, "Ann", key) == .welcome(register: nil))
        #expect(signIn(host, "Ann", key, oldKey: oldKey) == .welcome(register: nil))  // sent again (its file not yet removed): ignored
        // A new name with an old key registers the public key; the old key is not kept.
        #expect(signIn(host, "Bob", otherKey, oldKey: oldKey) == .welcome(register: .publicKey(name: "Bob", key: otherKey.publicKey)))
        // Whatever its bytes: a new name's old key of sixteen zero bytes is ignored too (only a
        // name registered by version 1 has an old key to check, and there it is refused above).
        let message = StoryWire.signInMessage(nonce: nonce, name: "Cy", channelBinding: .unbound)
        #expect(host.signIn(name: "Cy", publicKey: otherKey.publicKey, signature: otherKey.signature(for: message),
                            oldKey: Array(repeating: 0, count: 16), message: message)
                == .welcome(register: .publicKey(name: "Cy", key: otherKey.publicKey)))
    }

    @Test("an old journal read for import: version 1 keys as their digests, a torn tail reported, live matches given a deadline, the file unchanged")
    func journalImport() throws {
        var bytes = Journal.header(kind: StoryRecord.journalKind)
        let create = StoryRecord.command(.create(starter: "Ann", others: ["Bob"], title: "T", at: 1)).bytes
        for record in [StoryRecord.oldKey(name: "Ann", key: oldKey).bytes, create,
                       StoryRecord.publicKey(name: "Cy", key: key.publicKey).bytes] {
            Journal.frame(record, into: &bytes)
        }
        bytes += [0, 0, 0, 40, 1, 2, 3]
        let path = scratchDirectory("import") + "/story.journal"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let read = try StoryJournalImport(path: path, turnSeconds: 3600, now: 1000)
        #expect(read.keys == ["Ann": .oldKeyDigest(StoryKeyChecks.live.digest(oldKey.bytes)), "Cy": .publicKey(key.publicKey)])
        #expect(read.matches.count == 1 && read.matches[0].turnSeconds == 3600 && read.matches[0].dueAt == 4600)
        #expect(read.problems.count == 1 && read.problems[0].contains("the records before it came across"), "\(read.problems)")
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == bytes)
    }
}

func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard needle.count <= haystack.count else { return false }
    return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
}
