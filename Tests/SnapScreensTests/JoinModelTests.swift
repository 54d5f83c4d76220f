import SnapBytes
import SnapProtocol
import SnapScreens
import Testing

/// The Join screen's rules over string targets: "tcp:host:port" as a test writes it.
@Suite("The Join screen's model")
struct JoinModelTests {
    typealias Model = JoinModel<String>

    /// Reads "host:port" as a game, "snap://…" as an invitation with code K7QX4M, anything else refused.
    static let read: @Sendable (String) -> AddressReading<String> = { text in
        if text.hasPrefix("snap://") { return .game("relayed:" + text, label: "the game at relay", code: "K7QX4M") }
        if text.contains(":") { return .game("tcp:" + text, label: text, code: "") }
        return .refused(Alert("Not an address", "HOST:PORT, please."), focusAddress: false)
    }

    static func model(name: String = "Ann") -> Model { Model(savedName: name, readAddress: read) }

    static let open = JoinListing(target: "unix:Table", hostName: "Table", place: "this computer", label: "Table",
                                  players: 1, maxPlayers: 4, started: false)

    static func request(_ model: inout Model, _ intent: Model.Intent, now: Double = 0) -> Model.JoinRequest? {
        for case .join(let request) in model.handle(intent, now: now) { return request }
        return nil
    }

    @Test("a listed game: Enter joins the only one, under the saved name; Connecting… until the host welcomes")
    func joinListed() throws {
        var join = Self.model()
        #expect(!join.hasScanned)
        _ = join.handle(.found([Self.open]), now: 0)
        #expect(join.hasScanned && join.openCount == 1)
        let request = try #require(Self.request(&join, .enter, now: 1))
        #expect(request.target == "unix:Table" && request.name == "Ann" && request.role == .player && request.code.isEmpty)
        #expect(join.phase == .connecting("unix:Table", label: "Table", since: 1) && join.isBusy)
        #expect(join.handle(.connected, now: 2).isEmpty)
        #expect(join.phase == .waiting("unix:Table", label: "Table", since: 2))
        #expect(join.handle(.welcomed, now: 3) == [.openTable])
        #expect(join.phase == .choosing)
    }

    @Test("a changed name is saved when joining; a name that cannot be used stops the join, said in words")
    func names() {
        var join = Self.model()
        _ = join.handle(.found([Self.open]), now: 0)
        _ = join.handle(.click(in: .name), now: 0)
        _ = join.handle(.edit(.name, .type("a")), now: 0)
        let effects = join.handle(.chooseRow(0), now: 0)
        #expect(effects.first == .screen(.saveName("Anna")))
        #expect(effects.count == 2)
        _ = join.handle(.cancel, now: 0)
        _ = join.handle(.click(in: .name), now: 0)
        _ = join.handle(.edit(.name, .selectAll), now: 0)
        _ = join.handle(.edit(.name, .backspace), now: 0)
        #expect(join.handle(.chooseRow(0), now: 0).isEmpty)
        #expect(join.nameError == "Please type a name." && join.name.isFocused && join.phase == .choosing)
    }

    @Test("full and started games: full is said; started asks the host for the seats kept here, and the answer offers them")
    func startedAndFull() {
        var join = Self.model()
        var full = Self.open
        full.players = 4
        var started = Self.open
        started.target = "unix:Old"
        started.hostName = "Old"
        started.started = true
        _ = join.handle(.found([full, started]), now: 0)
        #expect(join.handle(.chooseRow(0), now: 0).isEmpty)
        #expect(join.question == .alert(Alert("Game full", "Table's table is full (4 of 4).")))
        #expect(join.handle(.chooseRow(1), now: 0).isEmpty, "the question takes input first")
        _ = join.handle(.answer(0), now: 0)
        #expect(join.handle(.chooseRow(1), now: 5) == [.lookUpSeats("unix:Old", name: "Ann", code: "")])
        #expect(join.phase == .lookingForSeat("unix:Old", label: "Old", since: 5))
        _ = join.handle(.seatOffer(.takeBack(["Player 3"])), now: 6)
        #expect(join.question?.title == "Take back Player 3's seat?")
        let request = Self.request(&join, .answer(0), now: 7)
        #expect(request?.name == "Player 3" && request?.role == .player && request?.target == "unix:Old")
        #expect(join.name.text == "Player 3")
    }

    @Test("a game that needs a code asks for it; a malformed code is refused in words; the host's wrong-code refusal asks again")
    func joinCode() throws {
        var join = Self.model()
        var lan = Self.open
        lan.target = "tcp:192.168.1.20:7777"
        lan.needsCode = true
        lan.label = "Table on laptop"
        _ = join.handle(.found([lan]), now: 0)
        _ = join.handle(.chooseRow(0), now: 0)
        #expect(join.phase == .askingCode("tcp:192.168.1.20:7777", label: "Table on laptop", problem: nil))
        _ = join.handle(.edit(.code, .type("k7q")), now: 0)
        #expect(join.handle(.submitCode, now: 0).isEmpty)
        #expect(join.phase == .askingCode("tcp:192.168.1.20:7777", label: "Table on laptop",
                                          problem: "6 characters, as the host's lobby shows it"))
        _ = join.handle(.edit(.code, .type("x4m")), now: 0)
        let request = try #require(Self.request(&join, .enter, now: 1))
        #expect(request.code == "K7QX4M")
        _ = join.handle(.connected, now: 2)
        _ = join.handle(.refused(.wrongCode, message: "wrong join code", hostName: "Table"), now: 3)
        #expect(join.phase == .askingCode("tcp:192.168.1.20:7777", label: "Table on laptop", problem: "That code was wrong. Try again."))
        #expect(join.code.text.isEmpty)
        _ = join.handle(.escape, now: 4)
        #expect(join.phase == .choosing)
    }

    @Test("a taken name offers the next one, and Yes joins under it without saving it as the player's")
    func nameTaken() throws {
        var join = Self.model()
        _ = join.handle(.found([Self.open]), now: 0)
        _ = join.handle(.chooseRow(0), now: 0)
        _ = join.handle(.connected, now: 0)
        _ = join.handle(.refused(.nameTaken, message: "name taken", hostName: "Table"), now: 0)
        #expect(join.question == .confirm("Name taken", "Someone called Ann has already joined Table. Join as Ann 2?", yes: "Join", no: "Cancel"))
        let effects = join.handle(.answer(0), now: 1)
        #expect(effects.count == 1, "no saveName: \(effects)")
        guard case .join(let request)? = effects.first else { Issue.record("no join: \(effects)"); return }
        #expect(request.name == "Ann 2")
    }

    @Test("an address: empty asks which; read into a game it joins; refused it says why; an invitation pasted anywhere lands in the address field")
    func address() throws {
        var join = Self.model()
        #expect(join.handle(.connect, now: 0).isEmpty)
        #expect(join.question?.title == "Which address?" && join.address.isFocused)
        _ = join.handle(.answer(nil), now: 0)
        _ = join.handle(.edit(.address, .type("nowhere")), now: 0)
        #expect(join.handle(.enter, now: 0).isEmpty)
        #expect(join.question == .alert(Alert("Not an address", "HOST:PORT, please.")))
        _ = join.handle(.answer(0), now: 0)
        _ = join.handle(.click(in: .name), now: 0)
        _ = join.handle(.edit(.name, .paste("  snap://relay:7790/room#K7QX4M,SHA256:x \n")), now: 0)
        #expect(join.address.text == "snap://relay:7790/room#K7QX4M,SHA256:x" && join.address.isFocused && !join.name.isFocused)
        #expect(join.name.text == "Ann")
        let request = try #require(Self.request(&join, .connect, now: 1))
        #expect(request.target == "relayed:snap://relay:7790/room#K7QX4M,SHA256:x" && request.code == "K7QX4M")
    }

    @Test("a changed certificate is asked about; Accept new joins trusting it once; Cancel joins nothing")
    func certificate() throws {
        var join = Self.model()
        let presented = CertificateFingerprint(digest: [UInt8](repeating: 7, count: 32))
        _ = join.handle(.found([Self.open]), now: 0)
        _ = join.handle(.chooseRow(0), now: 0)
        _ = join.handle(.connectFailed(.certificateChanged(question: "It changed.", presented: presented)), now: 1)
        #expect(join.question == .confirm("Certificate changed", "It changed.", yes: "Accept new", no: "Cancel"))
        let request = try #require(Self.request(&join, .answer(0), now: 2))
        #expect(request.accepting == presented)
        _ = join.handle(.cancel, now: 3)
        let again = try #require(Self.request(&join, .chooseRow(0), now: 4))
        #expect(again.accepting == nil, "accepted for one join")
        _ = join.handle(.connectFailed(.certificateChanged(question: "It changed.", presented: presented)), now: 5)
        #expect(join.handle(.answer(nil), now: 6).isEmpty)
    }

    @Test("no welcome within the timeout: given up, said in words; Cancel and Esc stop a join under way")
    func timeoutAndCancel() {
        var join = Self.model()
        _ = join.handle(.found([Self.open]), now: 0)
        _ = join.handle(.chooseRow(0), now: 0)
        _ = join.handle(.connected, now: 1)
        #expect(join.update(now: 1 + Model.welcomeTimeout).isEmpty)
        #expect(join.update(now: 1.1 + Model.welcomeTimeout) == [.cancelJoin])
        #expect(join.question == .alert(Alert("No answer", "Table did not answer. Is it a Snap! game?")))
        _ = join.handle(.answer(0), now: 20)
        _ = join.handle(.chooseRow(0), now: 20)
        #expect(join.handle(.escape, now: 21) == [.cancelJoin])
        #expect(join.phase == .choosing)
        #expect(join.handle(.connected, now: 22).isEmpty, "the outcome of a join given up")
        #expect(join.phase == .choosing)
    }

    @Test("a refusal in words: the relay's, the host's, and a connection lost before any welcome")
    func refusals() {
        var join = Self.model()
        _ = join.handle(.found([Self.open]), now: 0)
        _ = join.handle(.chooseRow(0), now: 0)
        _ = join.handle(.connectFailed(.relayRefused("the game at relay.example.org is over or the host is offline")), now: 1)
        #expect(join.question == .alert(Alert("Game not found", "The game at relay.example.org is over or the host is offline.")))
        _ = join.handle(.answer(0), now: 1)
        _ = join.handle(.chooseRow(0), now: 1)
        _ = join.handle(.connected, now: 1)
        _ = join.handle(.refused(.full, message: "full", hostName: "Table"), now: 2)
        #expect(join.question == .alert(Alert("Game full", "Table's table is full.")))
        _ = join.handle(.answer(0), now: 2)
        _ = join.handle(.chooseRow(0), now: 2)
        _ = join.handle(.connected, now: 2)
        _ = join.handle(.refused(nil, message: "Connection reset by peer", hostName: nil), now: 3)
        #expect(join.question == .alert(Alert("Cannot join", "Table did not let us in: it hung up.")))
    }

    @Test("Tab moves between the name and the address; Esc leaves a field, then goes back to the menu")
    func keys() {
        var join = Self.model()
        _ = join.handle(.tab, now: 0)
        #expect(join.name.isFocused)
        _ = join.handle(.tab, now: 0)
        #expect(join.address.isFocused && !join.name.isFocused)
        #expect(join.handle(.escape, now: 0).isEmpty)
        #expect(!join.address.isFocused)
        #expect(join.handle(.escape, now: 0) == [.screen(.show(.menu))])
        #expect(join.handle(.back, now: 0) == [.screen(.show(.menu))])
    }
}
