import StoryEngine
import StoryLink
import StoryProtocol
import Testing

/// The story service's connection machine without sockets, clock or database: each test
/// plays the store's part by hand.
@Suite("A story connection, as a state machine")
struct StoryConnectionTests {
    static let nonce: [UInt8] = Array(repeating: 7, count: StoryWire.nonceBytes)
    static let ann = StoryKey(privateKeyBytes: Array(repeating: 1, count: 32))!
    static let other = StoryKey(privateKeyBytes: Array(repeating: 2, count: 32))!

    static func connection(remote: Bool = false, joinCode: String? = nil, burst: Int = 60) -> StoryConnection {
        StoryConnection(StoryConnection.Context(
            remote: remote, joinCode: joinCode, channelBinding: .unbound, turnSeconds: 3600, checks: .live,
            helloTimeoutSeconds: 10, burst: burst, perSecond: 30, makeNonce: { nonce }))
    }

    /// Feeds `request` at time zero.
    static func ask(_ connection: inout StoryConnection, _ request: StoryRequest, now: UInt64 = 1_000) -> [StoryConnection.Action] {
        connection.handle(.request(request, elapsed: .zero), now: now)
    }

    /// Signs Ann in as a new name: every step, and the store's part.
    static func signedIn() -> StoryConnection {
        var connection = Self.connection()
        #expect(ask(&connection, .hello(name: "Ann", publicKey: ann.publicKey, joinCode: "")) == [.call(.registeredKey(of: "Ann"))])
        #expect(connection.handle(.answered(.registeredKey(nil)), now: 0) == [.send(.challenge(nonce: nonce))])
        #expect(ask(&connection, ann.proof(nonce: nonce, name: "Ann", channelBinding: .unbound)) == [.call(.registeredKey(of: "Ann"))])
        #expect(connection.handle(.answered(.registeredKey(nil)), now: 0) == [.call(.register(.publicKey(ann.publicKey), for: "Ann"))])
        #expect(connection.handle(.answered(.registered), now: 0)
                == [.signedIn("Ann"), .send(.welcome(version: StoryWire.version, name: "Ann"))])
        #expect(connection.name == "Ann")
        return connection
    }

    static func refusal(_ actions: [StoryConnection.Action]) -> (StoryRefusal, String, closes: Bool)? {
        guard case .send(.refused(let why, let words))? = actions.first else { return nil }
        return (why, words, actions.last == .close)
    }

    @Test("a new name: hello, its key read, challenge, proof, its key read again, registered, then welcome")
    func newName() {
        _ = Self.signedIn()
    }

    @Test("a known name with the same key is welcomed without registering it again")
    func knownKey() {
        var connection = Self.connection()
        _ = Self.ask(&connection, .hello(name: "Ann", publicKey: Self.ann.publicKey, joinCode: ""))
        _ = connection.handle(.answered(.registeredKey(.publicKey(Self.ann.publicKey))), now: 0)
        _ = Self.ask(&connection, Self.ann.proof(nonce: Self.nonce, name: "Ann", channelBinding: .unbound))
        #expect(connection.handle(.answered(.registeredKey(.publicKey(Self.ann.publicKey))), now: 0)
                == [.signedIn("Ann"), .send(.welcome(version: StoryWire.version, name: "Ann"))])
    }

    @Test("a name registered with another key is refused at the hello, and the connection ends")
    func takenName() {
        var connection = Self.connection()
        _ = Self.ask(&connection, .hello(name: "Ann", publicKey: Self.ann.publicKey, joinCode: ""))
        let refused = Self.refusal(connection.handle(.answered(.registeredKey(.publicKey(Self.other.publicKey))), now: 0))
        #expect(refused?.0 == .wrongKey && refused?.closes == true)
        #expect(refused?.1.contains("belongs to someone else") == true)
        #expect(connection.isClosed)
        #expect(Self.ask(&connection, .ping(1)).isEmpty, "a closed connection answers nothing")
    }

    @Test("a proof signed for another nonce, or by another key, is refused")
    func badProof() {
        for proof in [Self.ann.proof(nonce: Array(repeating: 8, count: StoryWire.nonceBytes), name: "Ann", channelBinding: .unbound),
                      Self.other.proof(nonce: Self.nonce, name: "Ann", channelBinding: .unbound),
                      Self.ann.proof(nonce: Self.nonce, name: "Ann", channelBinding: .tlsCertificate(sha256: Array(repeating: 3, count: 32))!)] {
            var connection = Self.connection()
            _ = Self.ask(&connection, .hello(name: "Ann", publicKey: Self.ann.publicKey, joinCode: ""))
            _ = connection.handle(.answered(.registeredKey(nil)), now: 0)
            _ = Self.ask(&connection, proof)
            let refused = Self.refusal(connection.handle(.answered(.registeredKey(nil)), now: 0))
            #expect(refused?.0 == .wrongKey && refused?.closes == true)
            #expect(refused?.1.contains("the proof does not match") == true)
        }
    }

    @Test("out of order: anything before the hello, anything but the proof after the challenge, a second hello after the welcome")
    func outOfOrder() {
        var first = Self.connection()
        #expect(Self.refusal(Self.ask(&first, .list)).map { [$0.0 == .signIn, $0.1 == "the first message must be a story hello", $0.closes] }
                == [true, true, true])
        var second = Self.connection()
        _ = Self.ask(&second, .hello(name: "Ann", publicKey: Self.ann.publicKey, joinCode: ""))
        _ = second.handle(.answered(.registeredKey(nil)), now: 0)
        #expect(Self.refusal(Self.ask(&second, .automatch))?.1 == "after the challenge comes the proof of your key, not a automatch")
        var third = Self.signedIn()
        let again = Self.refusal(Self.ask(&third, .hello(name: "Ann", publicKey: Self.ann.publicKey, joinCode: "")))
        #expect(again?.0 == .badRequest && again?.closes == true)
        var old = Self.connection()
        let version = Self.refusal(Self.ask(&old, .otherVersionHello(version: 2, rest: [])))
        #expect(version?.1 == StoryHost.versionRefusal(2) && version?.closes == true)
    }

    @Test("over TCP the join code is asked for; on a Unix socket it is not")
    func joinCode() {
        var none = Self.connection(remote: true, joinCode: "ABC234")
        #expect(Self.refusal(Self.ask(&none, .hello(name: "Ann", publicKey: Self.ann.publicKey, joinCode: "")))?.1
                == "this story service needs its join code (--code)")
        var wrong = Self.connection(remote: true, joinCode: "ABC234")
        #expect(Self.refusal(Self.ask(&wrong, .hello(name: "Ann", publicKey: Self.ann.publicKey, joinCode: "ABC999")))?.1 == "wrong join code")
        var right = Self.connection(remote: true, joinCode: "ABC234")
        #expect(Self.ask(&right, .hello(name: "Ann", publicKey: Self.ann.publicKey, joinCode: "abc-234")) == [.call(.registeredKey(of: "Ann"))])
        var local = Self.connection(remote: false, joinCode: "ABC234")
        #expect(Self.ask(&local, .hello(name: "Ann", publicKey: Self.ann.publicKey, joinCode: "")) == [.call(.registeredKey(of: "Ann"))])
    }

    @Test("the sign-in deadline ends a connection not yet welcomed, and no other")
    func deadline() {
        var waiting = Self.connection()
        #expect(Self.refusal(waiting.handle(.helloTimedOut, now: 0))?.1 == "not signed in within 10 s (hello, then the proof of your key)")
        var welcomed = Self.signedIn()
        #expect(welcomed.handle(.helloTimedOut, now: 0).isEmpty)
        #expect(!welcomed.isClosed)
    }

    @Test("requests are answered in order, one store call at a time: what comes meanwhile waits")
    func inOrder() {
        var connection = Self.signedIn()
        #expect(Self.ask(&connection, .list) == [.call(.matches(of: "Ann"))])
        #expect(connection.busy)
        // A ping behind the list waits for it, though it needs no store.
        #expect(Self.ask(&connection, .ping(9)).isEmpty)
        #expect(Self.ask(&connection, .show(StoryMatchID(4))).isEmpty)
        #expect(connection.handle(.answered(.matches([])), now: 0)
                == [.send(.listed(count: 0)), .send(.pong(9)), .call(.match(StoryMatchID(4)))])
        let unknown = Self.refusal(connection.handle(.answered(.match(nil)), now: 0))
        #expect(unknown?.0 == .unknownMatch && unknown?.closes == false)
        #expect(!connection.busy)
    }

    @Test("a command is stamped with the time and the service's deadline, committed, then answered and pushed")
    func command() throws {
        var connection = Self.signedIn()
        let actions = Self.ask(&connection, .automatch, now: 5_000)
        #expect(actions == [.call(.apply(.automatch(name: "Ann", at: 5_000, turnSeconds: 3600)))])
        let match = try StoryMatch.opened(StoryMatchID(1), by: .automatch(name: "Ann", at: 5_000, turnSeconds: 3600))
        #expect(connection.handle(.answered(.applied(match)), now: 0) == [.send(.match(match)), .push(match)])
        let badName = Self.refusal(Self.ask(&connection, .create(others: ["no\nname"], title: "T")))
        #expect(badName?.0 == .badRequest && badName?.closes == false, "refused before the store, the connection stays")
        #expect(Self.ask(&connection, .watch) == [.watch("Ann")])
    }

    @Test("a store fault refuses that request in words and keeps the connection; a store refusal likewise")
    func storeFaults() {
        var connection = Self.signedIn()
        _ = Self.ask(&connection, .list)
        #expect(Self.refusal(connection.handle(.answered(.failed), now: 0)).map { [$0.0 == .unavailable, $0.closes] } == [true, false])
        _ = Self.ask(&connection, .turn(StoryMatchID(2), text: "x"))
        let refused = Self.refusal(connection.handle(.answered(.refused(StoryRequestError(.notYourTurn, "not your turn"))), now: 0))
        #expect(refused?.0 == .notYourTurn && refused?.1 == "not your turn")
        #expect(Self.ask(&connection, .ping(3)) == [.send(.pong(3))])
        // During the sign-in: the step is asked again, not skipped.
        var signing = Self.connection()
        _ = Self.ask(&signing, .hello(name: "Ann", publicKey: Self.ann.publicKey, joinCode: ""))
        #expect(Self.refusal(signing.handle(.answered(.failed), now: 0))?.1 == StoryConnection.unavailableWords)
        #expect(Self.ask(&signing, .hello(name: "Ann", publicKey: Self.ann.publicKey, joinCode: "")) == [.call(.registeredKey(of: "Ann"))])
    }

    @Test("past the request budget the connection is refused and ends")
    func budget() {
        var connection = Self.connection(burst: 2)
        _ = Self.ask(&connection, .hello(name: "Ann", publicKey: Self.ann.publicKey, joinCode: ""))
        #expect(Self.ask(&connection, .ping(1)).isEmpty)
        let over = Self.refusal(Self.ask(&connection, .ping(2)))
        #expect(over?.0 == .overBudget && over?.closes == true)
        #expect(connection.handle(.answered(.registeredKey(nil)), now: 0).isEmpty, "an answer after the end is dropped")
    }
}
