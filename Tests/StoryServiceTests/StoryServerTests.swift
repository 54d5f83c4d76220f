import Foundation
import Glibc
import Logging
import NIOCore
import NIOPosix
import SnapJournal
import SnapPlatform
import SnapBytes
import StoryEngine
import SnapTestSupport
import Testing
@testable import StoryLink
@testable import StoryProtocol
@testable import StoryService
@testable import StoryStores

/// The service over a real Unix socket, in this process.
@Suite("Story service over a socket", .blocksThreads, .serialized)
struct StoryServerTests {
    /// A service on a fresh socket and a fresh SQLite store (with `journal`'s bytes imported
    /// into it first, if given).
    func withServer(journal: [UInt8]? = nil, channelBinding: StoryChannelBinding = .unbound,
                    limits: StoryServer.Limits = .init(), turnSeconds: UInt64 = 0, sweepInterval: TimeAmount = .seconds(1),
                    _ body: (String, StoryServer) async throws -> Void) async throws {
        let directory = scratchDirectory("story")
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let store: SQLiteStoryStore
        do { store = try await SQLiteStoryStore.open(path: directory + "/story.sqlite") } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        let server = StoryServer(store: store, loop: group.next(), logger: Logger(label: "test"), turnSeconds: turnSeconds,
                                 sweepInterval: sweepInterval)
        let outcome: Result<Void, Error>
        do {
            if let journal {
                #expect(FileManager.default.createFile(atPath: directory + "/story.journal", contents: Data(journal)))
                _ = try await StoryJournalImport.run(path: directory + "/story.journal", into: store, turnSeconds: 0, now: 0)
            }
            server.limits = limits
            try await server.listenLater(unixPath: directory + "/story.socket", channelBinding: channelBinding).get()
            // Off the cooperative pool, with the client's own tasks: synchronous tests elsewhere
            // in the process may hold it.
            try await withTaskExecutorPreference(OffPoolExecutor.shared) { try await body(directory + "/story.socket", server) }
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        _ = try? await server.shutdownLater().get()
        await store.close()
        try? await group.shutdownGracefully()
        try outcome.get()
    }

    /// What `server`'s store knows of `name`'s key.
    func registeredKey(_ name: String, in server: StoryServer) async throws -> StoryRegisteredKey? {
        let store = server.store
        return try await store.registeredKey(of: name)
    }

    /// A fixed key pair per byte, as a player's key file would hold.
    func key(_ byte: UInt8) -> StoryKey { StoryKey(privateKeyBytes: Array(repeating: byte, count: 32))! }

    func client(_ socket: String, _ name: String, _ key: StoryKey, oldKey: SeatToken? = nil,
                channelBinding: StoryChannelBinding = .unbound) async throws -> StoryClient {
        try await StoryClient(endpoint: .unix(socket), name: name, key: key, oldKey: oldKey, channelBinding: channelBinding)
    }

    /// The refusal `body` throws, if it throws one.
    func refusal(_ body: () async throws -> Void) async -> (StoryRefusal, String)? {
        do { try await body() } catch StoryClientError.refused(let why, let message) { return (why, message) } catch {
            Issue.record("not a refusal: \(error)")
        }
        return nil
    }

    @Test("a watching participant is pushed every change to their matches, and only theirs")
    func watchers() async throws {
        try await withServer { socket, _ in
            let ann = try await client(socket, "Ann", key(1))
            let bobWatch = try await client(socket, "Bob", key(2))
            let cyWatch = try await client(socket, "Cy", key(3))
            try await bobWatch.send(.watch)
            try await cyWatch.send(.watch)
            try await bobWatch.ping(1)  // the watch is in place once the pong is back
            try await cyWatch.ping(1)
            let match = try await ann.match(.create(others: ["Bob"], title: ""))
            guard case .update(let created) = try await bobWatch.next() else { Issue.record("no update"); return }
            #expect(created.id == match.id)
            _ = try await ann.match(.turn(match.id, text: "Once"))
            guard case .update(let turned) = try await bobWatch.next() else { Issue.record("no update"); return }
            #expect(turned.text == "Once" && turned.currentName == "Bob")
            // Cy takes no part: nothing for Cy but the pong.
            try await cyWatch.ping(2)
            #expect(await cyWatch.pendingUpdates.isEmpty)
        }
    }

    @Test("a rematch is pushed to the watching participants of the new match; one who declined hears nothing of it")
    func rematchWatchers() async throws {
        try await withServer { socket, _ in
            let ann = try await client(socket, "Ann", key(1))
            let bob = try await client(socket, "Bob", key(2))
            let cy = try await client(socket, "Cy", key(3))
            let match = try await ann.match(.create(others: ["Bob", "Cy"], title: "T"))
            _ = try await bob.match(.decline(match.id))
            #expect(try await ann.match(.quit(match.id)).current == nil)  // Cy alone: ended
            for watcher in [bob, cy] {
                try await watcher.send(.watch)
                try await watcher.ping(1)
                _ = await watcher.takeUpdates()
            }
            let again = try await ann.match(.rematch(match.id))
            #expect(again.participants.map(\.name) == ["Cy", "Ann"] && again.current == 0 && again.places == 2)
            try await cy.ping(2)
            #expect((await cy.takeUpdates()).map(\.id) == [again.id])
            try await bob.ping(2)
            #expect((await bob.takeUpdates()).isEmpty)
        }
    }

    @Test("a hello or a proof after the welcome is refused with badRequest and the connection closed")
    func signInAfterWelcome() async throws {
        try await withServer { socket, _ in
            for request in [StoryRequest.hello(name: "Ann", publicKey: key(1).publicKey, joinCode: ""),
                            .proof(signature: Array(repeating: 0, count: 64), oldKey: [])] {
                let ann = try await client(socket, "Ann", key(1))
                try await ann.send(request)
                guard case .refused(.badRequest, let words) = try await ann.next() else { Issue.record("not refused: \(request)"); continue }
                #expect(words.contains("after the welcome"))
                await #expect(throws: (any Error).self) { try await ann.ping(3) }  // closed
            }
        }
    }

    @Test("a flood of requests is cut as over budget; the service serves others on")
    func budget() async throws {
        try await withServer { socket, _ in
            let flooder = try await client(socket, "Flood", key(9))
            for nonce in 0..<200 { try? await flooder.send(.ping(UInt64(nonce))) }
            var refusal: String?
            while refusal == nil {
                guard let reply = try? await flooder.next() else { break }
                if case .refused(.overBudget, let message) = reply { refusal = message }
            }
            #expect(refusal?.contains("over budget") == true)
            let other = try await client(socket, "Ann", key(1))
            try await other.ping(5)
        }
    }

    /// Sends `bytes` on a fresh connection and returns the first reply (nil if the service
    /// closed without one).
    func firstReply(_ socket: String, _ bytes: [UInt8]) throws -> StoryReply? {
        let descriptor = try rawUnixSocket(socket)
        defer { close(descriptor) }
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var decoder = FrameDecoder(maxBodyLength: StoryWire.maxBodyLength)
        while true {
            if let frame = try decoder.nextFrame(failing: StoryWireError.self) { return try StoryReply.decode(frame) }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { return nil }
            decoder.append(buffer[0..<count])
        }
    }

    /// A hello laid out by hand as version 1 of docs/PROTOCOL.md §16 gave it: u16 1, the
    /// name, a 16-byte key, an empty join code.
    func versionOneHello(name: String, key: [UInt8]) -> [UInt8] {
        let payload: [UInt8] = [0, 1, UInt8(name.utf8.count)] + Array(name.utf8) + key + [0]
        let length = UInt32(9 + payload.count)
        return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF),
                0x53, 0x4E, 0x41, 0x50, 0x80, 0, 0, 0, 0] + payload
    }

    @Test("a version 1 hello (an older snap) is refused in words naming the upgrade, as version 1's client reads a refusal")
    func versionOne() async throws {
        try await withServer { socket, _ in
            let reply = try firstReply(socket, versionOneHello(name: "Ann", key: Array(1...16)))
            guard case .refused(let why, let message) = reply else { Issue.record("no refusal: \(String(describing: reply))"); return }
            #expect(why == .signIn && why.rawValue == 10)
            #expect(message.contains("speaks version \(StoryWire.version)") && message.contains("not 1") && message.contains("upgrade snap"), "\(message)")
        }
    }

    @Test("sign-in with a good key; another public key for a taken name is refused with wrongKey (9) in words")
    func signIn() async throws {
        try await withServer { socket, server in
            let ann = try await client(socket, "Ann", key(1))
            try await ann.ping(1)
            #expect(try await registeredKey("Ann", in: server) == .publicKey(key(1).publicKey))
            let again = try await client(socket, "Ann", key(1))  // the same key from another connection
            try await again.ping(2)
            guard let (why, words) = await refusal({ _ = try await client(socket, "Ann", key(2)) }) else { Issue.record("another key was let in"); return }
            #expect(why == .wrongKey && why.rawValue == 9)
            #expect(words.contains("the name Ann belongs to someone else"), "\(words)")
        }
    }

    @Test("a captured proof replayed on a new connection (a new nonce) is refused with wrongKey")
    func replayedProof() async throws {
        try await withServer { socket, _ in
            let ann = key(1)
            let first = try RawStory(socket)
            first.send(.hello(name: "Ann", publicKey: ann.publicKey, joinCode: ""))
            guard case .challenge(let nonce)? = try first.next() else { Issue.record("no challenge"); return }
            let proof = ann.proof(nonce: nonce, name: "Ann", channelBinding: .unbound)
            first.send(proof)
            #expect(try first.next() == .welcome(version: StoryWire.version, name: "Ann"))
            // Someone who saw all of that tries it again.
            let thief = try RawStory(socket)
            thief.send(.hello(name: "Ann", publicKey: ann.publicKey, joinCode: ""))
            guard case .challenge(let second)? = try thief.next() else { Issue.record("no challenge"); return }
            #expect(second != nonce && second.count == 32)
            thief.send(proof)
            guard case .refused(.wrongKey, let words)? = try thief.next() else { Issue.record("the replayed proof was taken"); return }
            #expect(words.contains("the proof does not match"))
            #expect(try thief.next() == nil)  // and cut
        }
    }

    @Test("a proof bound to another channel is refused; with the service's own binding it signs in")
    func channelBinding() async throws {
        let certificate = StoryChannelBinding.tlsCertificate(sha256: Array(repeating: 0xC3, count: 32))!
        let other = StoryChannelBinding.tlsCertificate(sha256: Array(repeating: 0x3C, count: 32))!
        try await withServer { socket, _ in
            // The client believes it talks over another channel (a service in the middle).
            guard let (why, words) = await refusal({ _ = try await client(socket, "Ann", key(1), channelBinding: certificate) }) else {
                Issue.record("a proof for another channel was taken"); return
            }
            #expect(why == .wrongKey && words.contains("a channel other than this one"), "\(words)")
        }
        try await withServer(channelBinding: certificate) { socket, _ in
            try await client(socket, "Ann", key(1), channelBinding: certificate).ping(1)
            #expect(await refusal({ _ = try await client(socket, "Ann", key(1), channelBinding: other) })?.0 == .wrongKey)
            #expect(await refusal({ _ = try await client(socket, "Ann", key(1)) })?.0 == .wrongKey)
        }
    }

    @Test("malformed proofs, a proof before hello, another message instead of the proof, and a slow sign-in are refused and cut")
    func signInViolations() async throws {
        var limits = StoryServer.Limits()
        limits.helloTimeout = .milliseconds(500)
        try await withServer(limits: limits) { socket, _ in
            let ann = key(1)
            let signature = [UInt8](repeating: 1, count: 64)
            func afterChallenge(_ payload: [UInt8], type: UInt8 = 0x89) throws -> (StoryReply?, StoryReply?) {
                let raw = try RawStory(socket)
                raw.send(.hello(name: "Ann", publicKey: ann.publicKey, joinCode: ""))
                guard case .challenge? = try raw.next() else { return (nil, nil) }
                raw.sendRaw(StoryWire.frame(type, payload, sequence: 1))
                return (try raw.next(), try raw.next())
            }
            for (payload, words) in [(signature + [5, 1, 2, 3, 4, 5], "an old key of 5 bytes"), (Array(signature.prefix(40)), "truncated"),
                                     (signature + [16] + Array(repeating: 1, count: 15), "truncated"), (signature + [0, 9], "trailing")] {
                let (reply, after) = try afterChallenge(payload)
                guard case .refused(.badRequest, let message)? = reply else { Issue.record("\(payload.count) bytes: \(String(describing: reply))"); continue }
                #expect(message.contains("malformed message") && message.contains(words), "\(message)")
                #expect(after == nil)
            }
            // A request where the proof should be.
            let (listed, _) = try afterChallenge([], type: 0x83)
            guard case .refused(.signIn, let words)? = listed else { Issue.record("a list before the proof: \(String(describing: listed))"); return }
            #expect(words.contains("after the challenge comes the proof"))
            // A proof first.
            let early = try firstReply(socket, StoryRequest.proof(signature: signature, oldKey: []).encode(sequence: 0))
            guard case .refused(.signIn, let first)? = early else { Issue.record("a proof before hello: \(String(describing: early))"); return }
            #expect(first.contains("the first message must be a story hello"))
            // The deadline covers the whole exchange: a challenge left unanswered is cut.
            let slow = try RawStory(socket)
            slow.send(.hello(name: "Ann", publicKey: ann.publicKey, joinCode: ""))
            guard case .challenge? = try slow.next() else { Issue.record("no challenge"); return }
            guard case .refused(.signIn, let late)? = try slow.next() else { Issue.record("no refusal in time"); return }
            #expect(late.contains("not signed in within"))
            // And none of it stopped the service.
            try await client(socket, "Ann", ann).ping(1)
        }
    }

    /// A version 1 journal: Ann and Bob registered by their old keys, a match between them.
    func versionOneJournal(_ keys: [String: SeatToken]) -> [UInt8] {
        var bytes = Journal.header(kind: StoryRecord.journalKind)
        for name in keys.keys.sorted() { Journal.frame(StoryRecord.oldKey(name: name, key: keys[name]!).bytes, into: &bytes) }
        Journal.frame(StoryRecord.command(.create(starter: "Ann", others: ["Bob"], title: "Old", at: 1)).bytes, into: &bytes)
        Journal.frame(StoryRecord.command(.turn(StoryMatchID(1), name: "Ann", text: "Before", at: 2)).bytes, into: &bytes)
        return bytes
    }

    /// The bytes of the store's files (the database and its write-ahead log).
    func storeBytes(_ socket: String) throws -> [UInt8] {
        let base = String(socket.dropLast("story.socket".count)) + "story.sqlite"
        return try [base, base + "-wal"].flatMap { path in
            access(path, F_OK) == 0 ? try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) : []
        }
    }

    @Test("a version 1 journal imported keeps no old key in the database; the old player moves to a key pair with it, once")
    func migration() async throws {
        let annOld = SeatToken(bytes: Array(1...16))!
        let bobOld = SeatToken(bytes: Array(101...116))!
        try await withServer(journal: versionOneJournal(["Ann": annOld, "Bob": bobOld])) { socket, server in
            let file = try storeBytes(socket)
            #expect(!contains(file, annOld.bytes) && !contains(file, bobOld.bytes), "an old key is in the database")
            #expect(try await registeredKey("Ann", in: server) == .oldKeyDigest(StoryKeyChecks.live.digest(annOld.bytes)))
            // Without the old key, or with Bob's, Ann's name does not move.
            #expect(await refusal({ _ = try await client(socket, "Ann", key(1)) })?.1.contains("registered by an older snap") == true)
            #expect(await refusal({ _ = try await client(socket, "Ann", key(1), oldKey: bobOld) })?.0 == .wrongKey)
            let ann = try await client(socket, "Ann", key(1), oldKey: annOld)
            #expect(try await ann.match(.show(StoryMatchID(1))).text == "Before")
            #expect(try await registeredKey("Ann", in: server) == .publicKey(key(1).publicKey))
            // The old key is used up: with another key pair it is refused; the new key alone signs in.
            #expect(await refusal({ _ = try await client(socket, "Ann", key(2), oldKey: annOld) })?.0 == .wrongKey)
            try await client(socket, "Ann", key(1)).ping(1)
        }
    }

    @Test("a move from an old key survives a restart: the database holds Ann's public key")
    func migrationKept() async throws {
        try await withTaskExecutorPreference(OffPoolExecutor.shared) {
            let directory = scratchDirectory("story")
            let annOld = SeatToken(bytes: Array(1...16))!
            #expect(FileManager.default.createFile(atPath: directory + "/story.journal", contents: Data(versionOneJournal(["Ann": annOld]))))
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            for round in 0..<2 {
                let store = try await SQLiteStoryStore.open(path: directory + "/story.sqlite")
                let wanted = try await StoryJournalImport.wanted(by: store)
                #expect(wanted == (round == 0), "imported twice")
                if wanted {
                    let (count, _) = try await StoryJournalImport.run(path: directory + "/story.journal", into: store, turnSeconds: 0, now: 0)
                    #expect(count == 1)
                }
                let server = StoryServer(store: store, loop: group.next(), logger: Logger(label: "test"))
                try await server.listenLater(unixPath: directory + "/story.socket").get()
                if round == 0 {
                    _ = try await client(directory + "/story.socket", "Ann", key(1), oldKey: annOld)
                } else {
                    #expect(try await registeredKey("Ann", in: server) == .publicKey(key(1).publicKey))
                    #expect(await refusal({ _ = try await client(directory + "/story.socket", "Ann", key(2), oldKey: annOld) })?.0 == .wrongKey)
                    try await client(directory + "/story.socket", "Ann", key(1)).ping(1)
                }
                _ = try? await server.shutdownLater().get()
                await store.close()
            }
            try? await group.shutdownGracefully()
            // Nothing was taken from the journal: it is as it was.
            let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/story.journal")))
            #expect(file == versionOneJournal(["Ann": annOld]))
        }
    }

    @Test("a connection's requests are answered in order, each after its store call: a turn, then a ping sent at once")
    func inOrder() async throws {
        try await withServer { socket, _ in
            let ann = try await client(socket, "Ann", key(1))
            let match = try await ann.match(.create(others: ["Bob"], title: ""))
            try await ann.send(.turn(match.id, text: "Once"))
            try await ann.send(.ping(7))
            try await ann.send(.show(match.id))
            guard case .match(let turned) = try await ann.next() else { Issue.record("the turn was not answered first"); return }
            #expect(turned.text == "Once")
            #expect(try await ann.next() == .pong(7))
            guard case .match(let shown) = try await ann.next() else { Issue.record("no show"); return }
            #expect(shown == turned)
        }
    }

    @Test("a store that fails refuses requests with unavailable, in words; the connection stays open")
    func storeGone() async throws {
        try await withServer { socket, server in
            let ann = try await client(socket, "Ann", key(1))
            let match = try await ann.match(.create(others: ["Bob"], title: ""))
            await server.store.close()
            try await ann.send(.turn(match.id, text: "Lost?"))
            guard case .refused(let why, let words) = try await ann.next() else { Issue.record("no refusal"); return }
            #expect(why == .unavailable && words == "the story service cannot reach its database; try again", "\(words)")
            try await ann.ping(3)
        }
    }

    @Test("a turn out of time passes to the next participant, and watchers are told of each pass")
    func deadlines() async throws {
        try await withServer(turnSeconds: 2, sweepInterval: .milliseconds(100)) { socket, _ in
            let ann = try await client(socket, "Ann", key(1))
            let bob = try await client(socket, "Bob", key(2))
            try await bob.send(.watch)
            try await bob.ping(1)
            let match = try await ann.match(.create(others: ["Bob", "Cy"], title: ""))
            #expect(match.turnSeconds == 2 && match.dueAt != nil)
            guard case .update = try await bob.next() else { Issue.record("no update of the new match"); return }
            guard case .update(let passed) = try await bob.next() else { Issue.record("no update when the time ran out"); return }
            #expect(passed.currentName == "Bob" && passed.participants[0].missed == 1, "\(passed)")
            // Bob writes in time; Cy does not.
            _ = try await bob.match(.turn(match.id, text: "In time."))
            guard case .update(let cyMissed) = try await bob.next() else { Issue.record("no update for Cy"); return }
            #expect(cyMissed.currentName == "Ann" && cyMissed.participants[2].missed == 1)
        }
    }

    @Test("the key store makes a 0600 key pair, carries an old key file over and removes it after the welcome")
    func keyStore() async throws {
        let annOld = SeatToken(bytes: Array(1...16))!
        try await withServer(journal: versionOneJournal(["Ann": annOld])) { socket, _ in
            let store = StoryKeyStore(directory: scratchDirectory("keys") + "/keys")
            try SecretFile.store(annOld, at: store.oldKeyPath(for: "Ann"), exclusive: true)
            let first = try store.identity(for: "Ann")
            #expect(first.oldKey == annOld)
            var status = stat()
            #expect(stat(store.keyPath(for: "Ann"), &status) == 0 && status.st_mode & 0o777 == 0o600)
            _ = try await store.signIn(endpoint: .unix(socket), name: "Ann")
            #expect(access(store.oldKeyPath(for: "Ann"), F_OK) != 0, "the old key file is still there")
            let second = try store.identity(for: "Ann")
            #expect(second.oldKey == nil && second.key.publicKey == first.key.publicKey)
            _ = try await store.signIn(endpoint: .unix(socket), name: "Ann")
            // A key file that holds no key is a clear error, not a new identity.
            #expect(FileManager.default.createFile(atPath: store.keyPath(for: "Bob"), contents: Data("nonsense\n".utf8)))
            #expect(throws: StoryClientError.self) { _ = try store.identity(for: "Bob") }
        }
    }

    @Test("a sequence gap, a request before hello, and a Snap! hello are refused and cut")
    func violations() async throws {
        try await withServer { socket, _ in
            for bytes in [
                StoryRequest.list.encode(sequence: 0),  // before hello
                StoryRequest.hello(name: "Ann", publicKey: key(1).publicKey, joinCode: "").encode(sequence: 3),  // gap
                [0, 0, 0, 9, 0x53, 0x4E, 0x41, 0x50, 0x01, 0, 0, 0, 0],  // Snap!'s type 0x01
            ] {
                let descriptor = try rawUnixSocket(socket)
                defer { close(descriptor) }
                _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
                var buffer = [UInt8](repeating: 0, count: 4096)
                var received: [UInt8] = []
                while true {
                    let count = recv(descriptor, &buffer, buffer.count, 0)
                    if count <= 0 { break }
                    received += buffer[0..<count]
                }
                var decoder = FrameDecoder(maxBodyLength: StoryWire.maxBodyLength)
                decoder.append(received)
                guard let frame = try decoder.nextFrame(failing: StoryWireError.self), case .refused = try StoryReply.decode(frame) else {
                    Issue.record("no refusal before the cut for \(bytes.prefix(9))"); continue
                }
            }
            let fine = try await client(socket, "Ann", key(1))
            try await fine.ping(1)
        }
    }
}

/// A plain blocking Unix-socket connection, for sending the service raw bytes.
func rawUnixSocket(_ path: String) throws -> Int32 {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    let result = withUnixAddress(path) { connect(descriptor, $0, $1) }
    guard result == 0 else {
        close(descriptor)
        throw StoryClientError.cannotConnect(path, String(cString: strerror(errno)))
    }
    return descriptor
}

/// A story connection driven by hand: requests as given, replies as they come.
final class RawStory {
    let descriptor: Int32
    private var sequence: UInt32 = 0
    private var decoder = FrameDecoder(maxBodyLength: StoryWire.maxBodyLength)

    init(_ socket: String) throws {
        descriptor = try rawUnixSocket(socket)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    func send(_ request: StoryRequest) {
        sendRaw(request.encode(sequence: sequence))
    }

    /// Bytes as they are; counts as the next frame.
    func sendRaw(_ bytes: [UInt8]) {
        sequence += 1
        _ = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The next reply; nil once the service has closed the connection.
    func next() throws -> StoryReply? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let frame = try decoder.nextFrame(failing: StoryWireError.self) { return try StoryReply.decode(frame) }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { return nil }
            decoder.append(buffer[0..<count])
        }
    }
}
