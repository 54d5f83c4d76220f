import SnapBytes
import SnapProtocol
import SnapRelayProtocol

/// A game the Join screen lists: on this machine or announced on the local network.
public struct JoinListing<Target: Hashable & Sendable>: Equatable, Sendable {
    public var target: Target
    public var hostName: String
    /// Where it is, as the row says it: "this computer", or "192.168.1.20:7777 · laptop · code".
    public var place: String
    /// How the connecting overlay names it: the host's name, or "Ann on laptop" for a LAN game that needs a code.
    public var label: String
    public var players: Int
    public var maxPlayers: Int
    public var started: Bool
    public var needsCode: Bool
    /// The certificate its announcement named (LAN games), checked when joining.
    public var fingerprint: CertificateFingerprint?

    public init(target: Target, hostName: String, place: String, label: String, players: Int, maxPlayers: Int,
                started: Bool, needsCode: Bool = false, fingerprint: CertificateFingerprint? = nil) {
        self.target = target
        self.hostName = hostName
        self.place = place
        self.label = label
        self.players = players
        self.maxPlayers = maxPlayers
        self.started = started
        self.needsCode = needsCode
        self.fingerprint = fingerprint
    }

    public var isFull: Bool { !started && players >= maxPlayers }
    public var isOpen: Bool { !started && !isFull }
}

/// What the player typed in the address field, read: a game to join, or why not (in words).
public enum AddressReading<Target: Hashable & Sendable>: Sendable {
    case game(Target, label: String, code: String)
    /// `focusAddress`: the text itself is wrong (the field takes the focus to be mended).
    case refused(Alert, focusAddress: Bool)
}

/// Join a game: the player's name, the games found on this machine and the local network, an
/// address typed as HOST:PORT or a pasted invitation (`snap://…`), a join code when the game
/// asks for one; then "Connecting…" until the host welcomes or refuses this player, and the
/// questions a refusal asks ("Name taken — join as Ann 2?", "Take back Ann's seat?",
/// "Certificate changed — accept the new one?"). `Target` is where a game is reached (the
/// window's `Endpoint`; a test's strings). Reading an address is the window's (`readAddress`):
/// it knows the network's types.
public struct JoinModel<Target: Hashable & Sendable> {
    public enum Field: Sendable { case name, address, code }

    public enum Phase: Equatable, Sendable {
        case choosing
        /// The game needs its join code: the code field in the overlay.
        case askingCode(Target, label: String, problem: String?)
        /// The window is connecting (it may take seconds).
        case connecting(Target, label: String, since: Double)
        /// Connected; waiting for the host's welcome (or refusal).
        case waiting(Target, label: String, since: Double)
        /// The game has started: the host is asked which seats kept on this computer are away.
        case lookingForSeat(Target, label: String, since: Double)
    }

    /// Why connecting failed, as the window read it.
    public enum Failure: Equatable, Sendable {
        /// The host shows another certificate than the one remembered: `question` says both.
        case certificateChanged(question: String, presented: CertificateFingerprint)
        /// The relay had no such game, or refused: its words.
        case relayRefused(String)
        /// Anything else, in words.
        case other(Alert)
    }

    public enum Intent: Sendable {
        case edit(Field, TextFieldModel.Edit)
        /// A click: in which field, if any.
        case click(in: Field?)
        case tab, enter, escape
        /// A row of the list (0 the top).
        case chooseRow(Int)
        case connect, back, cancel, submitCode
        /// The answer to the question shown: its index (Yes is 0), nil for No or the way out.
        case answer(Int?)
        /// The newest list of games.
        case found([JoinListing<Target>])
        /// The window connected: the host's welcome is awaited.
        case connected
        case connectFailed(Failure)
        /// The host welcomed this player: the table opens.
        case welcomed
        /// The host turned this player away (`reason` nil: lost before any welcome).
        case refused(CloseReason?, message: String, hostName: String?)
        /// The host's answer about the seats kept on this computer.
        case seatOffer(KeptSeatOffer)
    }

    /// What a join asks of the window.
    public struct JoinRequest: Equatable, Sendable {
        public var target: Target
        public var name: String
        public var code: String
        public var role: Hello.Role
        /// The fingerprint the game's announcement named, and one the player accepted: the trust to join with.
        public var announced: CertificateFingerprint?
        public var accepting: CertificateFingerprint?
    }

    public enum Effect: Equatable, Sendable {
        case screen(ScreenEffect)
        /// Connect and say hello (the outcome comes back as `connected` or `connectFailed`).
        case join(JoinRequest)
        /// Stop connecting, or say goodbye to the host that has not welcomed us yet.
        case cancelJoin
        /// Ask the host who is away among the seats this computer keeps in its game.
        case lookUpSeats(Target, name: String, code: String)
        /// The connected game goes to the table screen.
        case openTable
    }

    /// How long to wait for the host's welcome once connected (LAN.md quotes it).
    public static var welcomeTimeout: Double { 10 }
    /// Room in the address field for an invitation (about 120 characters with a long relay name).
    public static var longestTarget: Int { 300 }

    public private(set) var phase = Phase.choosing
    public private(set) var name: TextFieldModel
    public private(set) var address = TextFieldModel(maxLength: Self.longestTarget)
    public private(set) var code = TextFieldModel(maxLength: 9)
    public private(set) var nameError: String?
    public private(set) var hosts: [JoinListing<Target>] = []
    /// A list has been found at least once (before: "Looking for games…").
    public private(set) var hasScanned = false
    /// The question over the screen, if any; it takes input first.
    public private(set) var question: Question?

    private var savedName: String
    private let readAddress: @Sendable (String) -> AddressReading<Target>
    /// Where the last attempt went, to try again under another name.
    private var lastTarget: (target: Target, label: String)?
    private var lastCode = ""
    /// What each answer to the question joins (Yes is the first): a free name's variant, a
    /// seat kept on this computer, or a watcher's place.
    private var retries: [(Target, label: String, name: String, role: Hello.Role)] = []
    /// "Certificate changed — accept the new one?": the game, its label and code, and the fingerprint.
    private var acceptRetry: (Target, label: String, code: String, fingerprint: CertificateFingerprint)?
    /// Fingerprints LAN announcements named, and ones the player accepted.
    private var announced: [Target: CertificateFingerprint] = [:]
    private var accepted: [Target: CertificateFingerprint] = [:]

    public init(savedName: String, readAddress: @escaping @Sendable (String) -> AddressReading<Target>) {
        self.savedName = savedName
        self.readAddress = readAddress
        name = .name(savedName)
    }

    /// Connecting, waiting or asking: the list and fields take no input.
    public var isBusy: Bool { phase != .choosing }

    /// How many listed games can be joined.
    public var openCount: Int { hosts.filter(\.isOpen).count }

    public mutating func handle(_ intent: Intent, now: Double) -> [Effect] {
        switch intent {
        case .found(let games):
            games.forEach { if let print = $0.fingerprint { announced[$0.target] = print } }
            hosts = games
            hasScanned = true
            return []
        case .connected, .connectFailed, .welcomed, .refused, .seatOffer:
            return outcome(intent, now: now)
        case .answer(let index):
            return answer(index, now: now)
        default:
            break
        }
        guard question == nil else { return [] }  // the question takes input first
        if case .askingCode = phase { return codeInput(intent, now: now) }
        if isBusy {
            switch intent {
            case .cancel, .escape: cancel()
            default: return []
            }
            return [.cancelJoin]
        }
        return choosingInput(intent, now: now)
    }

    /// The welcome that never came: given up after `welcomeTimeout`.
    public mutating func update(now: Double) -> [Effect] {
        guard case .waiting(_, let label, let since) = phase, now - since > Self.welcomeTimeout else { return [] }
        fail(Alert("No answer", "\(label) did not answer. Is it a Snap! game?"))
        return [.cancelJoin]
    }

    // MARK: - Input

    private mutating func codeInput(_ intent: Intent, now: Double) -> [Effect] {
        code.isFocused = true
        switch intent {
        case .edit(.code, let edit): return code.handle(edit).map(Effect.screen)
        case .submitCode, .enter: return submitCode(now: now)
        case .cancel, .escape: cancel()
        default: break
        }
        return []
    }

    private mutating func choosingInput(_ intent: Intent, now: Double) -> [Effect] {
        switch intent {
        case .edit(_, .paste(let pasted)) where !address.isFocused
            && pasted.trimmingWhitespaceAndNewlines().hasPrefix(RelayInvitation.scheme):
            // An invitation goes to the address field wherever the focus is (a name cannot hold one).
            address.set(pasted.trimmingWhitespaceAndNewlines())
            name.isFocused = false
            address.isFocused = true
        case .edit(_, let edit):
            // Each field takes the edit only if it has the focus.
            let before = name.text
            var effects = name.handle(edit)
            if name.text != before { nameError = nil }
            if let rejected = name.rejection { nameError = rejected }
            effects += address.handle(edit)
            return effects.map(Effect.screen)
        case .click(let field):
            if field == .name { name.focus() } else { name.isFocused = false }
            if field == .address { address.focus() } else { address.isFocused = false }
        case .chooseRow(let row):
            if hosts.indices.contains(row) { return choose(hosts[row], now: now) }
        case .connect:
            return connectToAddress(now: now)
        case .enter:
            if address.isFocused { return connectToAddress(now: now) }
            if name.isFocused {
                guard let effects = saveName() else { return [] }
                name.isFocused = false
                return effects
            }
            if hosts.count == 1, !hosts[0].started { return choose(hosts[0], now: now) }
        case .tab:
            let toAddress = name.isFocused
            name.isFocused = !toAddress
            address.isFocused = toAddress
        case .escape:
            guard name.isFocused || address.isFocused else { return [.screen(.show(.menu))] }
            name.isFocused = false
            address.isFocused = false
        case .back:
            return [.screen(.show(.menu))]
        default:
            break
        }
        return []
    }

    // MARK: - Joining

    /// The name, checked and remembered (an effect when it changed); nil, with `nameError` set
    /// and the field focused, if it cannot be used.
    private mutating func saveName() -> [Effect]? {
        if let problem = NameRules.problem(name.text) {
            nameError = problem
            name.isFocused = true
            address.isFocused = false
            return nil
        }
        guard name.text != savedName else { return [] }
        savedName = name.text
        return [.screen(.saveName(name.text))]
    }

    private mutating func choose(_ game: JoinListing<Target>, now: Double) -> [Effect] {
        if game.needsCode, game.isOpen { return askCode(game.target, label: game.label, problem: nil) }
        if game.started { return offerStartedGame(game.target, label: game.hostName, now: now) }
        if game.isFull {
            question = .alert(Alert("Game full", "\(game.hostName)'s table is full (\(game.players) of \(game.maxPlayers))."))
            return []
        }
        return connect(game.target, label: game.hostName, now: now)
    }

    private mutating func askCode(_ target: Target, label: String, problem: String?) -> [Effect] {
        guard let effects = saveName() else { return [] }
        name.isFocused = false
        address.isFocused = false
        code.set("")
        code.isFocused = true
        phase = .askingCode(target, label: label, problem: problem)
        return effects
    }

    private mutating func submitCode(now: Double) -> [Effect] {
        guard case .askingCode(let target, let label, _) = phase else { return [] }
        guard let normalized = JoinCode.normalized(code.text) else {
            phase = .askingCode(target, label: label, problem: "6 characters, as the host's lobby shows it")
            return []
        }
        return connect(target, label: label, code: normalized, now: now)
    }

    private mutating func connectToAddress(now: Double) -> [Effect] {
        let text = address.text.trimmingWhitespace()
        guard !text.isEmpty else {
            address.isFocused = true
            question = .alert(Alert("Which address?", "Type the host's address as HOST:PORT, e.g. 192.168.1.20:7777, "
                                    + "or paste an invitation (Ctrl+V)."))
            return []
        }
        switch readAddress(text) {
        case .game(let target, let label, let code):
            return connect(target, label: label, code: code, now: now)
        case .refused(let why, let focusAddress):
            if focusAddress { address.isFocused = true }
            question = .alert(why)
            return []
        }
    }

    /// `remember`: save the name as this player's (not for a variant offered by "Name taken").
    private mutating func connect(_ target: Target, label: String, code: String = "", role: Hello.Role = .player,
                                  now: Double, remember: Bool = true) -> [Effect] {
        var effects: [Effect] = []
        if remember {
            guard let saved = saveName() else { return [] }
            effects = saved
        } else if NameRules.problem(name.text) != nil {
            return []
        }
        name.isFocused = false
        address.isFocused = false
        lastTarget = (target, label)
        lastCode = code
        let request = JoinRequest(target: target, name: name.text, code: code, role: role, announced: announced[target],
                                  accepting: accepted.removeValue(forKey: target))
        phase = .connecting(target, label: label, since: now)
        return effects + [.join(request)]
    }

    private mutating func cancel() {
        phase = .choosing
    }

    /// A game that started without this player: the host is asked which seats this computer
    /// keeps in it are away (a window that crashed), and the answer offers them.
    private mutating func offerStartedGame(_ target: Target, label: String, now: Double) -> [Effect] {
        phase = .lookingForSeat(target, label: label, since: now)
        return [.lookUpSeats(target, name: name.text, code: lastCode)]
    }

    private mutating func fail(_ alert: Alert) {
        phase = .choosing
        question = .alert(alert)
    }

    // MARK: - Outcomes

    private mutating func outcome(_ intent: Intent, now: Double) -> [Effect] {
        switch (intent, phase) {
        case (.connected, .connecting(let target, let label, _)):
            phase = .waiting(target, label: label, since: now)
        case (.connectFailed(let failure), .connecting(let target, let label, _)):
            switch failure {
            case .certificateChanged(let text, let presented):
                // The one refusal a player may overrule: after checking with the host.
                phase = .choosing
                question = .confirm("Certificate changed", text, yes: "Accept new", no: "Cancel")
                acceptRetry = (target, label, lastCode, presented)
            case .relayRefused(let why):
                // "the game at relay.example.org is over or the host is offline", and the relay's other refusals.
                fail(Alert("Game not found", Wording.sentence(why, after: "")))
            case .other(let alert):
                fail(alert)
            }
        case (.welcomed, .waiting):
            phase = .choosing
            return [.openTable]
        case (.refused(let reason, let message, let hostName), .waiting(let target, let label, _)):
            return refused(reason, message: message, host: hostName ?? label, target: target, label: label, now: now)
        case (.seatOffer(let offer), .lookingForSeat(let target, let label, _)):
            phase = .choosing
            let (asked, answers) = offer.question(game: "\(label)'s game", wayOut: "Cancel")
            question = asked
            retries = answers.map { (target, label, $0.name ?? name.text, $0.role) }
        default:
            break  // an outcome of an attempt the player gave up
        }
        return []
    }

    private mutating func refused(_ reason: CloseReason?, message: String, host: String, target: Target, label: String,
                                  now: Double) -> [Effect] {
        switch reason {
        case .nameTaken?:
            let taken = name.text
            let variant = NameRules.nextVariant(of: taken)
            phase = .choosing
            question = .confirm("Name taken", "Someone called \(taken) has already joined \(label). Join as \(variant)?",
                                yes: "Join", no: "Cancel")
            if let last = lastTarget { retries = [(last.target, last.label, variant, .player)] }
            return []
        case .wrongCode?:
            // Ask (again) for the code: the host said it is missing or wrong.
            return askCode(target, label: label, problem: message.hasPrefix("too many") ? Wording.sentence(message, after: "Join code")
                           : message.hasPrefix("wrong") ? "That code was wrong. Try again." : nil)
        case .gameStarted?:
            return offerStartedGame(target, label: host, now: now)
        default:
            let (title, text) = Self.refusal(reason, message, host: host, name: name.text)
            fail(Alert(title, text))
            return []
        }
    }

    /// Why the host turned this player away, in words.
    static func refusal(_ reason: CloseReason?, _ message: String, host: String, name: String) -> (String, String) {
        switch reason {
        case .full?: ("Game full", "\(host)'s table is full.")
        case .gameStarted?: ("Already playing", "\(host)'s game has already started.")
        case .nameTaken?: ("Name taken", "Someone called \(name) has already joined. Change your name and try again.")
        case .badName?: ("Invalid name", "The host refused the name: \(message).")
        case .versionUnsupported?: ("Different version", "That game runs another version of Snap!")
        case .hostQuit?, .gameFinished?: ("Game closed", "\(host) closed the game.")
        // Lost before any welcome: whatever answered is not a Snap! game (or it hung up).
        case nil: ("Cannot join", "\(host) did not let us in: \(Wording.shortReason(message)).")
        default: ("Could not join", Wording.sentence(message, after: "Could not join"))
        }
    }

    private mutating func answer(_ index: Int?, now: Double) -> [Effect] {
        guard question != nil else { return [] }
        question = nil
        if let (target, label, code, fingerprint) = acceptRetry {
            acceptRetry = nil
            guard index == 0 else { return [] }
            accepted[target] = fingerprint
            return connect(target, label: label, code: code, now: now)
        }
        // "Name taken — join as Ann 2?", "Take back Ann's seat?", "Watch?": an answer joins so.
        let answers = retries
        retries = []
        guard let index, answers.indices.contains(index) else { return [] }
        let (target, label, newName, role) = answers[index]
        name.set(newName)
        return connect(target, label: label, role: role, now: now, remember: false)
    }
}
