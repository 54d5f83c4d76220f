import SnapScreens
import Testing

@Suite("The host's lobby's model")
struct HostLobbyModelTests {
    typealias Game = HostLobbyModel.Game
    typealias Player = Game.Player

    static let host = Player(id: 1, name: "Ann")
    static let guest = Player(id: 2, name: "Bob")

    /// A game on this computer only, with the host in its lobby and these others.
    static func game(_ name: String = "Ann", others: [Player] = [], phase: Game.Phase = .waiting) -> Game {
        Game(name: name, players: [host] + others, me: host.id, phase: phase, socketPath: "/run/snap/\(name).sock")
    }

    static func lobby(_ game: Game = game(), savedRelay: String = "", launches: Int = 0) -> HostLobbyModel {
        var lobby = HostLobbyModel(game: game, savedRelay: savedRelay, launches: launches)
        _ = lobby.handle(.observed(game), now: 0)
        return lobby
    }

    /// Clicks in the name field, selects what it holds and types `text` over it.
    static func retype(_ lobby: inout HostLobbyModel, _ text: String) {
        _ = lobby.handle(.press(.name), now: 0)
        _ = lobby.handle(.edit(.selectAll), now: 0)
        _ = lobby.handle(.edit(.type(text)), now: 0)
    }

    // MARK: - The name

    @Test("Enter renames: the game is opened again under the new name, then replaces the old one, and the name is saved")
    func rename() {
        var lobby = Self.lobby()
        Self.retype(&lobby, "Zoë")
        #expect(lobby.name.text == "Zoë" && lobby.nameHint == "Press Enter to rename your game.")
        #expect(lobby.handle(.enter, now: 1) == [.game(.reopen(name: "Zoë"))])
        #expect(lobby.nameNotice == "Opening your game as Zoë…" && !lobby.name.isFocused)
        #expect(lobby.handle(.enter, now: 1.1).isEmpty, "one rename at a time")
        let renamed = Game(name: "Zoë", players: [Self.host], me: 1)
        #expect(lobby.handle(.reopened(renamed), now: 2) == [.game(.switchToReopened), .saveName("Zoë")])
        #expect(lobby.nameNotice == "Your game is now called Zoë." && lobby.game.name == "Zoë")
        #expect(lobby.nameError == nil)
    }

    @Test("a rename that fails is said in words and the field takes the focus again; the game goes on as it was")
    func renameFails() {
        var lobby = Self.lobby()
        Self.retype(&lobby, "Zoë")
        _ = lobby.handle(.enter, now: 1)
        #expect(lobby.handle(.reopenFailed("Another game is called Zoë."), now: 2).isEmpty)
        #expect(lobby.nameError == "Another game is called Zoë." && lobby.nameNotice == nil)
        #expect(lobby.name.isFocused && lobby.renaming == nil && lobby.game.name == "Ann")
    }

    @Test("a name that cannot be used is said and nothing is opened; the same name is no rename; Esc drops the edit")
    func nameRules() {
        var lobby = Self.lobby()
        Self.retype(&lobby, "Ann ")
        #expect(lobby.handle(.enter, now: 0).isEmpty)
        #expect(lobby.nameError == "A name cannot start or end with a space." && lobby.name.isFocused)
        _ = lobby.handle(.edit(.backspace), now: 0)
        #expect(lobby.nameError == nil, "typing clears the words")
        #expect(lobby.handle(.enter, now: 0).isEmpty, "the name it has")
        #expect(!lobby.name.isFocused && lobby.nameNotice == nil)
        _ = lobby.handle(.edit(.type("x")), now: 0)
        #expect(lobby.name.text == "Ann", "an unfocused field takes no typing")
        Self.retype(&lobby, "Bea#")
        #expect(lobby.nameError == "A name cannot hold \u{201C}#\u{201D}: use letters, digits, spaces and - _ . '")
        #expect(lobby.handle(.escape, now: 0).isEmpty)
        #expect(lobby.name.text == "Ann" && !lobby.name.isFocused && lobby.nameError == nil && lobby.nameNotice == nil)
    }

    @Test("leaving the field with a changed name by a click says Enter renames")
    func clickAway() {
        var lobby = Self.lobby()
        Self.retype(&lobby, "Cy")
        _ = lobby.handle(.press(nil), now: 0)
        #expect(lobby.nameNotice == "Press Enter in the field to rename your game.")
        #expect(lobby.handle(.enter, now: 0) == [.game(.reopen(name: "Cy"))], "Enter renames even out of the field")
    }

    @Test("once someone joined the name is fixed: an edit under way is undone, the field takes no typing, a click says why")
    func nameFixedOnceJoined() {
        var lobby = Self.lobby()
        Self.retype(&lobby, "Zed")
        _ = lobby.handle(.observed(Self.game(others: [Self.guest])), now: 1)
        #expect(lobby.name.text == "Ann" && !lobby.name.isFocused)
        #expect(lobby.nameNotice == "Players have joined: the game keeps the name Ann.")
        _ = lobby.handle(.press(.name), now: 2)
        #expect(!lobby.name.isFocused && lobby.nameNotice == "Players have joined: the game keeps its name.")
        _ = lobby.handle(.tab, now: 2)
        _ = lobby.handle(.edit(.type("x")), now: 2)
        #expect(lobby.name.text == "Ann")
        var fresh = Self.lobby()
        #expect(fresh.nameHint == "Other players see this name.")
        _ = fresh.handle(.observed(Self.game(others: [Self.guest])), now: 1)
        #expect(fresh.nameHint == "Other players see this name; it is fixed now that they joined.")
    }

    @Test("someone joined the old game while it was opened again under the new name: the new one is left, the name kept")
    func joinedDuringRename() {
        var lobby = Self.lobby()
        Self.retype(&lobby, "Zed")
        _ = lobby.handle(.enter, now: 1)
        _ = lobby.handle(.observed(Self.game(others: [Self.guest])), now: 1.5)
        #expect(lobby.handle(.reopened(Self.game("Zed")), now: 2) == [.game(.leaveReopened)])
        #expect(lobby.game.name == "Ann" && lobby.name.text == "Ann")
        #expect(lobby.nameNotice == "Players have joined: the game keeps the name Ann.")
    }

    @Test("a game with an invitation, or on TCP, keeps its name: the invitation or the port names it")
    func fixedNames() {
        var invited = Self.game()
        invited.invitation = .init(text: "snap://relay.example:7000/abc", code: "KX7M")
        var lobby = Self.lobby(invited)
        Self.retype(&lobby, "Zed")
        #expect(lobby.handle(.enter, now: 0).isEmpty)
        #expect(lobby.nameError == "A game with an invitation keeps its name: the invitation names it")
        #expect(lobby.name.text == "Ann")
        var onTCP = Self.game()
        onTCP.network = .init(addresses: ["192.168.1.20:7777"], code: "4321")
        lobby = Self.lobby(onTCP)
        Self.retype(&lobby, "Zed")
        #expect(lobby.handle(.enter, now: 0).isEmpty)
        #expect(lobby.nameError == "A game on the network keeps its name: start snapcards host --name … again to change it")
    }

    // MARK: - Players, Start, Exit

    @Test("the players: the host and whoever joined, as values; Start needs one other player, then Start or Enter starts")
    func start() {
        var lobby = Self.lobby()
        #expect(lobby.others.isEmpty && lobby.seatsTaken == 1 && !lobby.canStart)
        #expect(lobby.startHint == "Start needs at least one other player")
        #expect(lobby.handle(.choose(.start), now: 0).isEmpty)
        #expect(lobby.handle(.enter, now: 0).isEmpty)
        _ = lobby.handle(.observed(Self.game(others: [Self.guest, Player(id: 3, name: "Cy", ready: true)])), now: 1)
        #expect(lobby.others.map(\.name) == ["Bob", "Cy"] && lobby.seatsTaken == 3 && lobby.canStart)
        #expect(lobby.startHint == "Enter starts the game")
        #expect(lobby.handle(.choose(.start), now: 2) == [.game(.start), .game(.openTable)])
        #expect(lobby.handle(.enter, now: 2) == [.game(.start), .game(.openTable)])
    }

    @Test("the game began (the host's own --start-when): to the table")
    func playing() {
        var lobby = Self.lobby()
        #expect(lobby.handle(.observed(Self.game(others: [Self.guest], phase: .playing)), now: 1) == [.game(.openTable)])
    }

    @Test("Exit leaves at once in an empty lobby; with players it asks first, and Stay stays")
    func exit() {
        var empty = Self.lobby()
        #expect(empty.handle(.choose(.exit), now: 0) == [.game(.leave), .show(.menu)])
        var alone = Self.lobby()
        #expect(alone.handle(.escape, now: 0) == [.game(.leave), .show(.menu)], "Esc out of the fields exits")
        var lobby = Self.lobby(Self.game(others: [Self.guest]))
        #expect(lobby.handle(.choose(.exit), now: 0).isEmpty)
        #expect(lobby.dialog == .confirmExit)
        #expect(lobby.handle(.choose(.start), now: 0).isEmpty, "the dialog takes input first")
        #expect(lobby.handle(.answer(yes: false), now: 0).isEmpty)
        #expect(lobby.dialog == nil)
        _ = lobby.handle(.escape, now: 0)
        #expect(lobby.handle(.answer(yes: true), now: 0) == [.game(.leave), .show(.menu)])
    }

    @Test("the game closed under the lobby: said once, with the host's words or the default; OK goes back to the menu")
    func closedUnderUs() {
        var lobby = Self.lobby()
        _ = lobby.handle(.observed(Self.game(phase: .ended(message: ""))), now: 1)
        #expect(lobby.dialog == .closed(Alert("The game closed", "Your game is no longer open.")) && lobby.isClosed)
        var worded = Self.lobby(Self.game(others: [Self.guest]))
        _ = worded.handle(.choose(.exit), now: 0)
        _ = worded.handle(.observed(Self.game(others: [Self.guest], phase: .ended(message: "The host quit."))), now: 1)
        #expect(worded.dialog == .closed(Alert("The game closed", "The host quit.")), "over the question")
        #expect(worded.handle(.answer(yes: false), now: 2) == [.show(.menu)], "whatever the answer")
        _ = worded.handle(.observed(Self.game(phase: .ended(message: "again"))), now: 3)
        #expect(worded.dialog == nil, "said once")
    }

    @Test("snapcards play: each player's window opens once everyone opened before it is in the lobby, one a frame")
    func launchesInTurn() {
        var lobby = HostLobbyModel(game: Self.game(), launches: 3)
        #expect(lobby.handle(.observed(Self.game()), now: 0) == [.game(.launch(0))])
        #expect(lobby.handle(.observed(Self.game()), now: 0.1).isEmpty, "the first has not joined yet")
        let one = Self.game(others: [Self.guest])
        #expect(lobby.handle(.observed(one), now: 0.2) == [.game(.launch(1))])
        #expect(lobby.handle(.observed(one), now: 0.3).isEmpty)
        let three = Self.game(others: [Self.guest, Player(id: 3, name: "Cy"), Player(id: 4, name: "Di")])
        #expect(lobby.handle(.observed(three), now: 0.4) == [.game(.launch(2))])
        #expect(lobby.handle(.observed(three), now: 0.5).isEmpty, "all opened")
        #expect(lobby.launched == 3)
    }

    // MARK: - The relay

    @Test("Invite over the internet: the room asked for at the relay typed, the address saved once it is one")
    func invite() {
        var lobby = Self.lobby(savedRelay: "relay.example:7000")
        #expect(lobby.showsInvite && !lobby.showsCopy && lobby.canInvite)
        #expect(lobby.handle(.choose(.invite), now: 0) == [.game(.openRoom(relay: "relay.example:7000"))])
        #expect(lobby.relayNotice == "Opening a room at the relay relay.example:7000…" && lobby.isInviting && !lobby.canInvite)
        #expect(lobby.handle(.roomAddress(problem: nil), now: 0).isEmpty, "the address the settings hold")
        // Meanwhile nothing is renamed, started or left, and the old game's closing is no news.
        #expect(lobby.handle(.choose(.exit), now: 1).isEmpty)
        #expect(lobby.handle(.escape, now: 1).isEmpty)
        _ = lobby.handle(.observed(Self.game(phase: .ended(message: ""))), now: 1)
        #expect(lobby.dialog == nil)
        var invited = Self.game()
        invited.invitation = .init(text: "snap+relay://relay.example:7000/room?code=KX7M", code: "KX7M")
        #expect(lobby.handle(.invited(invited), now: 2).isEmpty)
        #expect(lobby.relayNotice == "Players elsewhere choose Join Game and paste this invitation.")
        #expect(!lobby.showsInvite && lobby.showsCopy && !lobby.isInviting)
    }

    @Test("a relay typed afresh is saved in the settings; Enter in its field invites")
    func newRelaySaved() {
        var lobby = Self.lobby(savedRelay: "old.example:1")
        _ = lobby.handle(.press(.relay), now: 0)
        #expect(lobby.relay.isFocused && !lobby.name.isFocused)
        _ = lobby.handle(.edit(.selectAll), now: 0)
        _ = lobby.handle(.edit(.type(" new.example:7000 ")), now: 0)
        #expect(lobby.handle(.enter, now: 0) == [.game(.openRoom(relay: "new.example:7000"))])
        #expect(lobby.handle(.roomAddress(problem: nil), now: 0) == [.saveRelay("new.example:7000")])
    }

    @Test("a relay that is no address, none typed, or players in the lobby: said in words, no room asked for")
    func inviteRefused() {
        var lobby = Self.lobby()
        #expect(lobby.handle(.choose(.invite), now: 0).isEmpty)
        #expect(lobby.relayError == "Type the relay's address first (HOST:PORT): whoever runs snapcards relay serve gives it.")
        #expect(lobby.relay.isFocused)
        _ = lobby.handle(.edit(.type("nonsense")), now: 0)
        #expect(lobby.relayError == nil, "typing clears the words")
        #expect(lobby.handle(.enter, now: 0) == [.game(.openRoom(relay: "nonsense"))])
        let problem = "The relay: \"nonsense\" is not HOST:PORT, e.g. 192.168.1.20:7777."
        #expect(lobby.handle(.roomAddress(problem: problem), now: 0).isEmpty, "nothing saved")
        #expect(lobby.relayError == problem && lobby.relayNotice == nil && lobby.relay.isFocused && !lobby.isInviting)
        var joined = Self.lobby(Self.game(others: [Self.guest]), savedRelay: "relay.example:7000")
        #expect(!joined.canInvite && joined.relayHint == "Invite before anyone joins: inviting opens the game again.")
        #expect(joined.handle(.choose(.invite), now: 0).isEmpty)
        #expect(joined.relayError == "Players have joined: inviting opens the game again, which would send them away.")
    }

    @Test("no room at the relay: why, and the lobby goes on with the game opened again as it was")
    func noRoom() {
        var lobby = Self.lobby(savedRelay: "127.0.0.1:1")
        _ = lobby.handle(.choose(.invite), now: 0)
        _ = lobby.handle(.roomAddress(problem: nil), now: 0)
        let why = "No relay answered at 127.0.0.1:1 (nobody is listening there)."
        #expect(lobby.handle(.noRoom(why, Self.game()), now: 1).isEmpty)
        #expect(lobby.relayError == why && lobby.relayNotice == nil && !lobby.isInviting)
        #expect(lobby.showsInvite && lobby.game.invitation == nil && lobby.dialog == nil)
    }

    @Test("not even the game as it was could be opened again: the game closed, OK goes back to the menu")
    func gameLost() {
        var lobby = Self.lobby(savedRelay: "relay.example:7000")
        _ = lobby.handle(.choose(.invite), now: 0)
        _ = lobby.handle(.gameLost(relayError: "No room at the relay relay.example:7000: full.", message: "The name is in use."), now: 1)
        #expect(lobby.relayError == "No room at the relay relay.example:7000: full." && lobby.isClosed)
        #expect(lobby.dialog == .closed(Alert("The game closed", "The name is in use.")))
        #expect(lobby.handle(.answer(yes: true), now: 2) == [.show(.menu)])
    }

    @Test("Copy invitation asks the clipboard; it says it was copied, or that it could not be, in words")
    func copy() {
        var game = Self.game()
        game.invitation = .init(text: "snap+relay://relay.example:7000/room?code=KX7M", code: "KX7M")
        var lobby = Self.lobby(game)
        #expect(lobby.handle(.choose(.copy), now: 0) == [.copyToClipboard("snap+relay://relay.example:7000/room?code=KX7M")])
        #expect(lobby.copied == nil, "not before the clipboard took it")
        _ = lobby.handle(.clipboardTook(true), now: 0)
        #expect(lobby.copied == "snap+relay://relay.example:7000/room?code=KX7M")
        #expect(lobby.relayNotice == "Copied: send it to the players (a message, a mail).")
        var refused = Self.lobby(game)
        _ = refused.handle(.choose(.copy), now: 0)
        _ = refused.handle(.clipboardTook(false), now: 0)
        #expect(refused.copied == nil)
        #expect(refused.relayError == "The invitation could not be copied: select it from snapcards host --relay instead.")
        // A field's Ctrl+C is no invitation copied.
        var plain = Self.lobby(savedRelay: "relay.example:7000")
        _ = plain.handle(.press(.relay), now: 0)
        _ = plain.handle(.edit(.selectAll), now: 0)
        #expect(plain.handle(.edit(.copy), now: 0) == [.copyToClipboard("relay.example:7000")])
        _ = plain.handle(.clipboardTook(false), now: 0)
        #expect(plain.relayError == nil && plain.copied == nil)
    }

    @Test("a game on TCP shows its addresses where the relay's row was: no relay field, no Invite")
    func onTCP() {
        var game = Self.game()
        game.network = .init(addresses: ["192.168.1.20:7777"], code: "4321", certificate: "sha256:ab12")
        var lobby = Self.lobby(game, savedRelay: "relay.example:7000")
        #expect(!lobby.showsInvite && !lobby.showsCopy)
        _ = lobby.handle(.press(.relay), now: 0)
        #expect(!lobby.relay.isFocused)
    }
}
