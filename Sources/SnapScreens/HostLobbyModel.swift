/// The host's lobby: its name (Enter renames the game, until someone joins: the game
/// listens under the host's name, and renaming it would leave the joined players behind),
/// the players who joined, Start (with at least one other player) and Exit (asked first
/// when players joined). "Invite over the internet" opens the game again with a room at the
/// relay typed in its field (docs/RELAY.md), then "Copy invitation" puts the line players
/// paste on the clipboard. The game itself is the scene's (a network object): the scene
/// tells the model what the game says each frame (`Intent.observed`) and does what the model
/// asks of it (`ScreenEffect.game`); games opened again come back as intents.
public struct HostLobbyModel: Equatable, Sendable {
    public enum Action: Hashable, Sendable { case start, exit, invite, copy }

    /// The lobby's two text fields.
    public enum Field: Hashable, Sendable { case name, relay }

    public enum Intent: Equatable, Sendable {
        /// A press in a field, or elsewhere (nil).
        case press(Field?)
        /// A button pressed and released.
        case choose(Action)
        /// A key or a paste, for the focused field.
        case edit(TextFieldModel.Edit)
        case enter, tab, escape
        /// The dialog's answer: yes (Close, OK) or not.
        case answer(yes: Bool)
        /// What the game says now: sent each frame, except while the game is opened again.
        case observed(Game)
        /// The game opened again under the new name (`GameRequest.reopen`) is open: its state.
        case reopened(Game)
        /// It could not be opened, and why, in words: the game goes on as it was.
        case reopenFailed(String)
        /// The answer to `GameRequest.openRoom`: nil when the relay's address is one and the
        /// room is being asked for; else why not, in words.
        case roomAddress(problem: String?)
        /// The game opened again with its room at the relay: its state.
        case invited(Game)
        /// No room at the relay (why, in words); the game was opened again as it was: its state.
        case noRoom(String, Game)
        /// Not even the game as it was could be opened again: why there is no room, and
        /// why the game closed, in words.
        case gameLost(relayError: String, message: String)
        /// Whether the clipboard took the text a `.copyToClipboard` asked it to.
        case clipboardTook(Bool)
    }

    /// What the scene reads from its game.
    public struct Game: Equatable, Sendable {
        public enum Phase: Equatable, Sendable {
            case waiting
            case playing
            /// The game closed under the lobby, with the host's words (maybe none).
            case ended(message: String)
        }

        public struct Player: Equatable, Sendable {
            public var id: Int
            public var name: String
            public var ready: Bool

            public init(id: Int, name: String, ready: Bool = false) {
                self.id = id
                self.name = name
                self.ready = ready
            }
        }

        /// A game on TCP: the addresses players elsewhere can use (HOST:PORT), its join code
        /// (nil with --open) and its certificate's short fingerprint.
        public struct Network: Equatable, Sendable {
            public var addresses: [String]
            public var code: String?
            public var certificate: String?

            public init(addresses: [String], code: String?, certificate: String? = nil) {
                self.addresses = addresses
                self.code = code
                self.certificate = certificate
            }
        }

        /// A game with a room at a relay: the line players paste, and its join code.
        public struct Invitation: Equatable, Sendable {
            public var text: String
            public var code: String?

            public init(text: String, code: String?) {
                self.text = text
                self.code = code
            }
        }

        public var name: String
        /// Everyone in the lobby, the host's own player among them, in joining order.
        public var players: [Player]
        /// The host's own player's id.
        public var me: Int
        public var phase: Phase
        public var socketPath: String?
        public var network: Network?
        public var invitation: Invitation?
        /// Whether it can be opened again with a room at a relay.
        public var canInvite: Bool

        public init(name: String, players: [Player] = [], me: Int = 0, phase: Phase = .waiting, socketPath: String? = nil,
                    network: Network? = nil, invitation: Invitation? = nil, canInvite: Bool = true) {
            self.name = name
            self.players = players
            self.me = me
            self.phase = phase
            self.socketPath = socketPath
            self.network = network
            self.invitation = invitation
            self.canInvite = canInvite
        }

        /// Everyone in the lobby but the host's own player.
        public var others: [Player] { players.filter { $0.id != me } }
    }

    /// A question or a message over the lobby.
    public enum Dialog: Equatable, Sendable {
        /// Exit with players in the lobby: "Close the game?" (Close, Stay).
        case confirmExit
        /// The game closed under the lobby: OK goes back to the menu.
        case closed(Alert)
    }

    public static let maxPlayers = 4

    public private(set) var game: Game
    public private(set) var name: TextFieldModel
    public private(set) var nameError: String?
    public private(set) var nameNotice: String?
    /// The relay's address (HOST:PORT).
    public private(set) var relay: TextFieldModel
    /// How "Invite over the internet" went, in words: under way, failed, copied.
    public private(set) var relayNotice: String?
    public private(set) var relayError: String?
    /// What "Copy invitation" last put on the clipboard.
    public private(set) var copied: String?
    public private(set) var dialog: Dialog?
    /// The game closed under the lobby: the dialog's OK goes back to the menu.
    public private(set) var isClosed = false
    /// The new name while the game is opened again under it.
    public private(set) var renaming: String?
    /// The relay's address while the game is opened again with a room there.
    public private(set) var inviting: String?
    /// The relay's address the settings file holds.
    private var savedRelay: String
    /// The invitation asked of the clipboard, until it answers.
    private var copying: String?
    /// `snapcards play`: how many players' windows to open, one at a time, and how many opened.
    private let launches: Int
    public private(set) var launched = 0

    /// `savedRelay`: the relay's address in the settings file; `launches`: how many players'
    /// windows `snapcards play` opens, each once everyone opened before it is in the lobby.
    public init(game: Game, savedRelay: String = "", launches: Int = 0) {
        self.game = game
        self.savedRelay = savedRelay
        self.launches = launches
        name = .name(game.name)
        relay = TextFieldModel(text: savedRelay, maxLength: 80)
    }

    public var others: [Game.Player] { game.others }
    /// Start takes the lobby to the table: with at least one other player.
    public var canStart: Bool { !others.isEmpty }
    /// The game is being opened again with a room: the lobby takes no input meanwhile (the
    /// dots of "Opening a room…" turn).
    public var isInviting: Bool { inviting != nil }
    /// "Invite over the internet" and the relay's field: on a game with no room yet and not
    /// on TCP (its addresses take the row).
    public var showsInvite: Bool { game.invitation == nil && game.network == nil }
    /// "Copy invitation": once the game has a room.
    public var showsCopy: Bool { game.invitation != nil }
    /// Inviting opens the game again: only before anyone joined, one at a time.
    public var canInvite: Bool { inviting == nil && others.isEmpty }
    /// How many of the seats are taken, the host's among them.
    public var seatsTaken: Int { min(Self.maxPlayers, others.count + 1) }

    /// The line under the name when there is no error.
    public var nameHint: String {
        nameNotice ?? (!others.isEmpty ? "Other players see this name; it is fixed now that they joined."
            : name.isFocused ? "Press Enter to rename your game." : "Other players see this name.")
    }

    /// The relay's line when it has neither an error nor a notice.
    public var relayHint: String? {
        game.invitation == nil && !others.isEmpty ? "Invite before anyone joins: inviting opens the game again." : nil
    }

    /// The line under Start.
    public var startHint: String { canStart ? "Enter starts the game" : "Start needs at least one other player" }

    public mutating func handle(_ intent: Intent, now: Double) -> [ScreenEffect] {
        switch intent {
        case .observed(let said): return observe(said)
        case .reopened(let fresh): return reopened(fresh)
        case .reopenFailed(let why):
            renaming = nil
            nameNotice = nil
            nameError = why
            name.isFocused = true
        case .roomAddress(let problem): return roomAddress(problem)
        case .invited(let fresh):
            inviting = nil
            game = fresh
            game.players = []
            relayNotice = "Players elsewhere choose Join Game and paste this invitation."
        case .noRoom(let why, let again):
            inviting = nil
            game = again
            game.players = []
            relayNotice = nil
            relayError = why
        case .gameLost(let why, let message):
            inviting = nil
            relayNotice = nil
            relayError = why
            isClosed = true
            dialog = .closed(Alert("The game closed", message))
        case .clipboardTook(let took):
            guard let invitation = copying else { break }  // a field's Ctrl+C
            copying = nil
            if took {
                copied = invitation
                relayNotice = "Copied: send it to the players (a message, a mail)."
            } else {
                relayError = "The invitation could not be copied: select it from snapcards host --relay instead."
            }
        case .answer(let yes):
            guard let shown = dialog else { break }
            dialog = nil
            if isClosed { return [.show(.menu)] }
            if yes, shown == .confirmExit { return exit() }
        case _ where dialog != nil:
            break  // the dialog takes input first
        case _ where inviting != nil:
            break  // the game is being opened again: nothing to rename, start or leave meanwhile
        case .press(let field): press(field)
        case .edit(let edit): return self.edit(edit)
        case .choose(.start): return start()
        case .choose(.exit): return askExit()
        case .choose(.invite): return invite()
        case .choose(.copy): return copyInvitation()
        case .enter:
            if relay.isFocused {
                return invite()
            } else if name.isFocused || name.text != game.name {
                return submitName()
            } else if canStart {
                return start()
            }
        case .tab:
            name.isFocused.toggle()
            relay.isFocused = false
        case .escape:
            if relay.isFocused {
                relay.isFocused = false
            } else if name.isFocused {
                // Esc in the field drops the edit.
                name.set(game.name)
                name.isFocused = false
                nameError = nil
                nameNotice = nil
            } else {
                return askExit()
            }
        }
        return []
    }

    // MARK: - The fields

    private mutating func press(_ field: Field?) {
        if showsInvite {
            if field == .relay { relay.focus() } else { relay.isFocused = false }
        }
        // Once someone joined, the name is fixed: the field takes no typing.
        if !others.isEmpty {
            if field == .name { nameNotice = "Players have joined: the game keeps its name." }
            return
        }
        let wasFocused = name.isFocused
        if field == .name { name.focus() } else { name.isFocused = false }
        if wasFocused, !name.isFocused, name.text != game.name, nameError == nil {
            nameNotice = "Press Enter in the field to rename your game."
        }
    }

    private mutating func edit(_ edit: TextFieldModel.Edit) -> [ScreenEffect] {
        var effects: [ScreenEffect] = []
        if showsInvite {
            let before = relay.text
            effects += relay.handle(edit)
            if relay.text != before { relayError = nil }
        }
        if others.isEmpty, name.isFocused {
            let before = name.text
            effects += name.handle(edit)
            if name.text != before {
                nameError = nil
                nameNotice = nil
            }
            if let rejected = name.rejection { nameError = rejected }
        }
        return effects
    }

    // MARK: - The name

    private mutating func submitName() -> [ScreenEffect] {
        let typed = name.text
        if let problem = NameRules.problem(typed) {
            nameError = problem
            return []
        }
        name.isFocused = false
        guard typed != game.name else {
            nameNotice = nil
            return []
        }
        if game.invitation != nil {
            // Renaming opens a new game, which would need a new room and a new invitation.
            name.set(game.name)
            nameError = "A game with an invitation keeps its name: the invitation names it"
            return []
        }
        if game.network != nil {
            // Renaming opens a new game, which would lose the TCP port, its announcement and its code.
            name.set(game.name)
            nameError = "A game on the network keeps its name: start snapcards host --name … again to change it"
            return []
        }
        guard others.isEmpty else {
            keepName()
            return []
        }
        // The host listens under its name: a game is opened under the new one, then the old closed.
        guard renaming == nil, inviting == nil else { return [] }
        renaming = typed
        nameError = nil
        nameNotice = "Opening your game as \(typed)…"
        return [.game(.reopen(name: typed))]
    }

    /// Someone joined while the name was being edited: the game keeps its name.
    private mutating func keepName() {
        name.set(game.name)
        name.isFocused = false
        nameError = nil
        nameNotice = "Players have joined: the game keeps the name \(game.name)."
    }

    private mutating func reopened(_ fresh: Game) -> [ScreenEffect] {
        guard let newName = renaming else { return [.game(.leaveReopened)] }
        renaming = nil
        guard others.isEmpty else {
            // Someone joined the old game meanwhile: it keeps its name.
            keepName()
            return [.game(.leaveReopened)]
        }
        game = fresh
        game.players = []
        nameError = nil
        nameNotice = "Your game is now called \(newName)."
        return [.game(.switchToReopened), .saveName(newName)]
    }

    // MARK: - The relay

    /// "Invite over the internet": the relay's address checked (the scene parses it and
    /// answers `roomAddress`), remembered, then the game opened again with a room there.
    private mutating func invite() -> [ScreenEffect] {
        guard inviting == nil, renaming == nil, game.invitation == nil else { return [] }
        relay.isFocused = false
        relayNotice = nil
        let text = relay.text.trimmingWhitespace()
        guard !text.isEmpty else {
            relayError = "Type the relay's address first (HOST:PORT): whoever runs snapcards relay serve gives it."
            relay.isFocused = true
            return []
        }
        guard others.isEmpty else {
            relayError = "Players have joined: inviting opens the game again, which would send them away."
            return []
        }
        guard game.canInvite else { return [] }
        relayError = nil
        relayNotice = "Opening a room at the relay \(text)…"
        inviting = text
        return [.game(.openRoom(relay: text))]
    }

    private mutating func roomAddress(_ problem: String?) -> [ScreenEffect] {
        guard let text = inviting else { return [] }
        if let problem {
            inviting = nil
            relayNotice = nil
            relayError = problem
            relay.isFocused = true
            return []
        }
        guard text != savedRelay else { return [] }
        savedRelay = text
        return [.saveRelay(text)]
    }

    /// Puts the invitation on the clipboard, for the player to send to friends.
    private mutating func copyInvitation() -> [ScreenEffect] {
        guard let invitation = game.invitation?.text else { return [] }
        copying = invitation
        return [.copyToClipboard(invitation)]
    }

    // MARK: - The game

    private func start() -> [ScreenEffect] {
        guard canStart else { return [] }
        return [.game(.start), .game(.openTable)]
    }

    private mutating func askExit() -> [ScreenEffect] {
        guard others.isEmpty else {
            dialog = .confirmExit
            return []
        }
        return exit()
    }

    private func exit() -> [ScreenEffect] { [.game(.leave), .show(.menu)] }

    private mutating func observe(_ said: Game) -> [ScreenEffect] {
        // While it is opened again, the old game's closing is no news.
        guard inviting == nil else { return [] }
        let joined = said.players != game.players
        game = said
        if joined, !others.isEmpty, name.isFocused || name.text != game.name { keepName() }
        var effects: [ScreenEffect] = []
        // `snapcards play`: each window once everyone opened before it is in the lobby
        // (seats go by joining order, so "Player 3" then sits before "Player 4").
        if launched < launches, others.count >= launched {
            effects.append(.game(.launch(launched)))
            launched += 1
        }
        switch game.phase {
        case .playing:
            effects.append(.game(.openTable))
        case .ended(let message) where !isClosed:
            isClosed = true
            dialog = .closed(Alert("The game closed", message.isEmpty ? "Your game is no longer open." : message))
        default:
            break
        }
        return effects
    }
}

/// What a screen asks of the game it holds (the host's lobby's): the scene holding the game
/// does it (a game is a network object), and `App.perform` leaves it to that scene. A game
/// opened again comes back to the screen as an intent.
public enum GameRequest: Equatable, Sendable {
    /// Start the game (the host's Start).
    case start
    /// Go to the table: the game began.
    case openTable
    /// Leave the game: a host's leaving ends it for everyone.
    case leave
    /// Open the game again under another name (the host listens under its name).
    case reopen(name: String)
    /// The game opened again replaces the one on screen, which is left.
    case switchToReopened
    /// The game opened again is not wanted after all (someone joined the old one): leave it.
    case leaveReopened
    /// Open the game again with a room at the relay at this address (HOST:PORT, as typed).
    case openRoom(relay: String)
    /// `snapcards play`: open the window of the player at this index (from 0).
    case launch(Int)
}
