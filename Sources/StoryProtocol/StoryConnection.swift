import SnapBytes
import StoryEngine

/// One connection to the story service, as a pure state machine (like Snap!'s
/// `HostSession`): requests, store answers and the sign-in deadline go in, and what to
/// send, which store call to make, whom to tell come out. No socket, clock or database:
/// `StoryServer` feeds it on its event loop and carries its actions out.
///
/// Sign-in (docs/PROTOCOL.md §16): hello → the name's registered key is read → challenge
/// (a fresh nonce) → proof → the key read again and checked (`StoryHost.signIn`) → a new
/// key registered → welcome. Anything out of order, or a refused step, ends the
/// connection. Signed in, requests are answered in order, one store call at a time: a
/// request that comes while one is at the store waits in the queue. A store fault refuses
/// that request with `unavailable` and keeps the connection.
public struct StoryConnection: Sendable {
    public enum Input: Sendable {
        /// A request off the wire; `elapsed`: the service's clock, for the request budget.
        case request(StoryRequest, elapsed: Duration)
        /// The store call last asked for (`Action.call`) returned this.
        case answered(StoreAnswer)
        /// The sign-in deadline passed.
        case helloTimedOut
    }

    /// What to ask the store; its answer comes back as `Input.answered`.
    public enum StoreCall: Equatable, Sendable {
        case registeredKey(of: String)
        /// A new name's key, or a name's move from its version 1 key (before the welcome).
        case register(StoryRegisteredKey, for: String)
        case matches(of: String)
        case match(StoryMatchID)
        /// A command, committed before anyone hears of it.
        case apply(StoryCommand)
    }

    public enum StoreAnswer: Sendable {
        case registeredKey(StoryRegisteredKey?)
        case registered
        case matches([StoryMatch])
        case match(StoryMatch?)
        case applied(StoryMatch)
        /// The store refused (a `StoryError`: not your turn, an ended match…).
        case refused(StoryRequestError)
        /// The store failed (its database unreachable…).
        case failed
    }

    public enum Action: Equatable, Sendable {
        case send(StoryReply)
        /// Close the connection, after what was sent before.
        case close
        case call(StoreCall)
        /// Signed in: the sign-in deadline no longer applies.
        case signedIn(String)
        /// From now on this connection hears of the player's matches' changes.
        case watch(String)
        /// Tell the other connections watching this match's participants.
        case push(StoryMatch)
    }

    /// The connection's circumstances, fixed when it opens.
    public struct Context: Sendable {
        /// Over TCP: the join code is asked for.
        public var remote: Bool
        /// The code TCP players must give (nil: none).
        public var joinCode: String?
        /// What the proof must be bound to (its listener's).
        public var channelBinding: StoryChannelBinding
        /// The deadline of matches that do not ask for their own.
        public var turnSeconds: UInt64
        public var checks: StoryKeyChecks
        /// Said when the sign-in deadline passes.
        public var helloTimeoutSeconds: Int64
        /// Requests: a burst of `burst`, then `perSecond`.
        public var burst: Int
        public var perSecond: Double
        /// A fresh challenge each sign-in (the system's secure generator; a test's own).
        public var makeNonce: @Sendable () -> [UInt8]

        public init(remote: Bool, joinCode: String?, channelBinding: StoryChannelBinding, turnSeconds: UInt64,
                    checks: StoryKeyChecks, helloTimeoutSeconds: Int64, burst: Int, perSecond: Double,
                    makeNonce: @escaping @Sendable () -> [UInt8] = StoryConnection.secureNonce) {
            self.remote = remote
            self.joinCode = joinCode
            self.channelBinding = channelBinding
            self.turnSeconds = turnSeconds
            self.checks = checks
            self.helloTimeoutSeconds = helloTimeoutSeconds
            self.burst = burst
            self.perSecond = perSecond
            self.makeNonce = makeNonce
        }
    }

    /// What a request is answered when the store fails.
    public static let unavailableWords = "the story service cannot reach its database; try again"

    private enum State: Sendable {
        case awaitingHello
        /// The hello's name: its registered key is being read.
        case checkingHello(name: String, publicKey: [UInt8])
        /// The challenge went out with `nonce`; the proof must sign it.
        case awaitingProof(name: String, publicKey: [UInt8], nonce: [UInt8])
        /// The proof came: the name's key is being read again to check it against.
        case checkingProof(name: String, publicKey: [UInt8], nonce: [UInt8], signature: [UInt8], oldKey: [UInt8])
        /// The proof holds: the key is being registered before the welcome.
        case registering(name: String, publicKey: [UInt8], nonce: [UInt8])
        case signedIn(String)
        case closed
    }

    /// What a signed-in connection's store call is answering.
    private enum Asked: Sendable {
        case list
        case show(StoryMatchID)
        case command
    }

    public let context: Context
    private var state = State.awaitingHello
    private var queue: [StoryRequest] = []
    private var asked: Asked?
    private var bucket: TokenBucket
    /// A store call is out: requests wait.
    public private(set) var busy = false

    public init(_ context: Context) {
        self.context = context
        bucket = TokenBucket(capacity: context.burst, perSecond: context.perSecond)
    }

    /// The signed-in player's name.
    public var name: String? {
        if case .signedIn(let name) = state { name } else { nil }
    }

    public var isClosed: Bool {
        if case .closed = state { true } else { false }
    }

    /// `now`: the time in seconds since 1970, stamped on the commands made meanwhile.
    public mutating func handle(_ input: Input, now: UInt64) -> [Action] {
        guard !isClosed else { return [] }
        var actions: [Action] = []
        switch input {
        case .request(let request, let elapsed):
            guard bucket.take(at: elapsed) else {
                return refuse(.overBudget, "over budget: more than \(context.burst) requests at once, or \(Int(context.perSecond)) a second",
                              close: true)
            }
            queue.append(request)
        case .answered(let answer):
            guard busy else { return [] }  // no call is out: nothing to answer
            busy = false
            actions += answered(answer)
        case .helloTimedOut:
            guard name == nil else { return [] }
            return refuse(.signIn, "not signed in within \(context.helloTimeoutSeconds) s (hello, then the proof of your key)", close: true)
        }
        // The queue, in order, until a request needs the store or the connection ends.
        while !busy, !isClosed, !queue.isEmpty {
            actions += step(queue.removeFirst(), now: now)
        }
        return actions
    }

    // MARK: - Steps

    private mutating func step(_ request: StoryRequest, now: UInt64) -> [Action] {
        guard let name else { return signIn(request) }
        switch request {
        case .hello, .otherVersionHello, .proof:
            return refuse(.badRequest, "a second sign-in (\(request.kind)) after the welcome", close: true)
        case .ping(let nonce):
            return [.send(.pong(nonce))]
        case .watch:
            return [.watch(name)]
        case .list:
            return call(.matches(of: name), asked: .list)
        case .show(let id):
            return call(.match(id), asked: .show(id))
        case .create, .automatch, .turn, .quit, .decline, .rematch:
            switch StoryHost.command(request, by: name, at: now, turnSeconds: context.turnSeconds) {
            case .failure(let error): return refuse(error.refusal, error.message)
            case .success(let command): return call(.apply(command), asked: .command)
            }
        }
    }

    private mutating func signIn(_ request: StoryRequest) -> [Action] {
        switch (state, request) {
        case (.awaitingHello, .otherVersionHello(let version, _)):
            return refuse(.signIn, StoryHost.versionRefusal(version), close: true)
        case (.awaitingHello, .hello(let name, let publicKey, let code)):
            if context.remote, let joinCode = context.joinCode, JoinCode.normalized(code) != joinCode {
                return refuse(.signIn, code.isEmpty ? "this story service needs its join code (--code)" : "wrong join code", close: true)
            }
            state = .checkingHello(name: name, publicKey: publicKey)
            return call(.registeredKey(of: name), asked: nil)
        case (.awaitingProof(let name, let publicKey, let nonce), .proof(let signature, let oldKey)):
            state = .checkingProof(name: name, publicKey: publicKey, nonce: nonce, signature: signature, oldKey: oldKey)
            return call(.registeredKey(of: name), asked: nil)
        case (.awaitingHello, _):
            return refuse(.signIn, "the first message must be a story hello", close: true)
        default:
            return refuse(.signIn, "after the challenge comes the proof of your key, not a \(request.kind)", close: true)
        }
    }

    private mutating func answered(_ answer: StoreAnswer) -> [Action] {
        let asked = self.asked
        self.asked = nil
        switch (state, answer) {
        case (_, .failed):
            backToTheStepBefore()
            return refuse(.unavailable, Self.unavailableWords)
        case (_, .refused(let error)):
            backToTheStepBefore()
            return refuse(error.refusal, error.message)
        case (.checkingHello(let name, let publicKey), .registeredKey(let known)):
            if let problem = StoryHost.checkHello(name: name, publicKey: publicKey, known: known) {
                return refuse(problem.refusal, problem.message, close: true)
            }
            let nonce = context.makeNonce()
            state = .awaitingProof(name: name, publicKey: publicKey, nonce: nonce)
            return [.send(.challenge(nonce: nonce))]
        case (.checkingProof(let name, let publicKey, let nonce, let signature, let oldKey), .registeredKey(let known)):
            let message = StoryWire.signInMessage(nonce: nonce, name: name, channelBinding: context.channelBinding)
            switch StoryHost.signIn(name: name, publicKey: publicKey, signature: signature, oldKey: oldKey,
                                    message: message, known: known, checks: context.checks) {
            case .refused(let why, let words):
                return refuse(why, words, close: true)
            case .welcome(.publicKey(let registered, let key)?):
                // Registered before the welcome: a name answered is never lost (nor its move from an old key).
                state = .registering(name: name, publicKey: publicKey, nonce: nonce)
                return call(.register(.publicKey(key), for: registered), asked: nil)
            case .welcome:
                return welcome(name)
            }
        case (.registering(let name, _, _), .registered):
            return welcome(name)
        case (.signedIn, .matches(let matches)):
            guard case .list? = asked else { break }
            return matches.map { .send(.match($0)) } + [.send(.listed(count: UInt32(matches.count)))]
        case (.signedIn, .match(let match)):
            guard case .show(let id)? = asked else { break }
            guard let match else { return refuse(.unknownMatch, StoryError.unknownMatch(id).description) }
            return [.send(.match(match))]
        case (.signedIn, .applied(let match)):
            guard case .command? = asked else { break }
            return [.send(.match(match)), .push(match)]
        default:
            break
        }
        // An answer to a question not asked: the server's fault, never the player's.
        return refuse(.unavailable, Self.unavailableWords)
    }

    /// A store that failed during a sign-in step leaves the sign-in where it was before it.
    private mutating func backToTheStepBefore() {
        switch state {
        case .checkingHello: state = .awaitingHello
        case .checkingProof(let name, let publicKey, let nonce, _, _), .registering(let name, let publicKey, let nonce):
            state = .awaitingProof(name: name, publicKey: publicKey, nonce: nonce)
        default: break
        }
    }

    private mutating func welcome(_ name: String) -> [Action] {
        state = .signedIn(name)
        return [.signedIn(name), .send(.welcome(version: StoryWire.version, name: name))]
    }

    private mutating func call(_ call: StoreCall, asked: Asked?) -> [Action] {
        busy = true
        self.asked = asked
        return [.call(call)]
    }

    private mutating func refuse(_ why: StoryRefusal, _ message: String, close: Bool = false) -> [Action] {
        guard close else { return [.send(.refused(why, message))] }
        state = .closed
        queue = []
        busy = false
        return [.send(.refused(why, message)), .close]
    }

    /// 32 bytes from the system's secure generator: a proof signed for one connection is
    /// worth nothing on the next.
    public static let secureNonce: @Sendable () -> [UInt8] = {
        var generator = SystemRandomNumberGenerator()
        var nonce: [UInt8] = []
        for _ in 0..<(StoryWire.nonceBytes / 8) { withUnsafeBytes(of: generator.next()) { nonce += $0 } }
        return nonce
    }
}
