import ArgumentParser
import Dispatch
import FoundationEssentials
import Logging
import NIOCore
import NIOPosix
import SnapBytes
import SnapCommandLine
import SnapFiles
import SnapNet
import SnapProtocol
import StoryEngine
import StoryLink
import StoryProtocol
import StoryService
import StoryStores
#if GUI
import SnapUI
#endif

/// `snapcards story`: the turn-based second game. With no command: the window.
struct Story: ParsableCommand {
    #if GUI
    static let subcommands: [ParsableCommand.Type] = [
        StoryWindow.self, StoryServe.self, StoryImport.self, StoryNew.self, StoryAutomatch.self, StoryList.self, StoryShow.self, StoryTurn.self, StoryQuit.self,
        StoryDecline.self, StoryRematch.self, StoryNotify.self,
    ]
    static let configuration = CommandConfiguration(
        commandName: "story",
        abstract: "Story: write a story together, one turn at a time (docs/STORY.md). With no command: the window.",
        subcommands: subcommands, defaultSubcommand: StoryWindow.self)
    #else
    static let configuration = CommandConfiguration(
        commandName: "story",
        abstract: "Story: write a story together, one turn at a time (docs/STORY.md).",
        subcommands: [StoryServe.self, StoryImport.self, StoryNew.self, StoryAutomatch.self, StoryList.self, StoryShow.self, StoryTurn.self, StoryQuit.self,
                      StoryDecline.self, StoryRematch.self, StoryNotify.self])
    #endif
}

/// The name saved by the window's settings (`$XDG_CONFIG_HOME/snap/settings`, `name=`),
/// read here without SnapUI so that the headless build has it too. Unlike the window it
/// does not fall back to the login name: an identity is for days, so it is never guessed.
func storySavedName(environment: [String: String] = currentEnvironment()) -> String? {
    let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        ?? (environment["HOME"] ?? "/nonexistent") + "/.config"
    guard let text = try? String(contentsOfFile: config + "/snap/settings", encoding: .utf8) else { return nil }
    for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("name=") {
        let name = String(line.dropFirst(5))
        if PlayerName.isValid(name) { return name }
    }
    return nil
}

/// How every player command reaches the service and who it is.
struct StoryPlayerOptions: ParsableArguments {
    @Option(help: "Your name (default: the one saved in the window's settings).") var name: String?
    @Option(help: "The service's Unix socket (default: story.socket in $XDG_RUNTIME_DIR/snap).") var socket: String?
    @Option(help: "Reach the service over TCP instead, e.g. 192.168.1.20:7788.") var connect: String?
    @Option(help: "The service's join code (over TCP).") var code: String?
    @OptionGroup var tls: TLSClientOptions

    func validate() throws {
        if let name { _ = try validName(name, option: "--name") }
        if let connect { _ = try validAddress(connect, option: "--connect", use: .connect) }
        if socket != nil, connect != nil { throw ValidationError("give --socket or --connect, not both") }
        if let code, let problem = JoinCode.problem(code) { throw ValidationError("--code: \(problem)") }
    }

    func playerName() throws -> String {
        if let name { return name }
        guard let saved = storySavedName() else {
            printError("error: no name: pass --name NAME (or save one in the window: snapcards, then Join or Story)")
            throw ExitCode(64)
        }
        return saved
    }

    func endpoint() throws -> StoryEndpoint {
        if let connect {
            let address = try validAddress(connect, option: "--connect", use: .connect)
            return .tcp(host: address.host, port: address.port)
        }
        return .unix(try socket ?? defaultStorySocketPath(create: false))
    }

    /// Signs in; a refusal or an unreachable service is a clear error, exit 1 or 3.
    func client() async throws -> StoryClient {
        let name = try playerName()
        do {
            return try await StoryKeyStore.default().signIn(endpoint: try endpoint(), name: name, joinCode: code.flatMap(JoinCode.normalized) ?? "",
                                                      trust: try tls.trust())
        } catch {
            throw storyFailure(error)
        }
    }
}

func withStoryClient<T>(_ options: StoryPlayerOptions, _ body: (StoryClient) async throws -> T) async throws -> T {
    let client = try await options.client()
    do { return try await body(client) } catch { throw storyFailure(error) }
}

func parseMatchID(_ text: String) throws -> StoryMatchID {
    guard let value = UInt32(text), value > 0 else { throw ValidationError("a match ID is a number like 7, not \"\(text)\"") }
    return StoryMatchID(value)
}

struct StoryNew: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new", abstract: "Start a match with the named players (you write first); prints \"match ID\".")
    @Option(help: "The other participants, in turn order, e.g. Ann,Bob.") var with: String
    @Option(help: "A title (default: the opening of the story).") var title = ""
    @Option(help: "Time for each turn, e.g. 30m, 72h or 3d (default: the service's, 72h unless it says otherwise); when it runs out the turn passes.")
    var deadline: String?
    @OptionGroup var player: StoryPlayerOptions

    func validate() throws { _ = try turnSeconds() }

    func turnSeconds() throws -> UInt64 {
        guard let deadline else { return 0 }
        switch StoryDuration.parse(deadline) {
        case .success(let seconds): return seconds
        case .failure(let error): throw ValidationError("--deadline: \(error)")
        }
    }

    func run() async throws {
        let others = with.split(separator: ",").map { String($0) }
        let seconds = try turnSeconds()
        try await withStoryClient(player) { client in
            let match = try await client.match(.create(others: others, title: title, turnSeconds: seconds))
            say("match \(match.id)")
        }
    }
}

struct StoryAutomatch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "automatch",
        abstract: "Join the oldest open match with a free place, or open a new one; prints \"match ID\".")
    @OptionGroup var player: StoryPlayerOptions

    func run() async throws {
        try await withStoryClient(player) { client in
            let match = try await client.match(.automatch)
            say("match \(match.id)")
        }
    }
}

/// "turn: Bob" or "ended".
func storyStatusLine(_ match: StoryMatch) -> String {
    match.currentName.map { "turn: \($0)" } ?? "ended"
}

/// Seconds since 1970, the service's clock as this machine reads it.
func storyNow() -> UInt64 { UInt64(max(0, Date().timeIntervalSince1970)) }

/// "5 h left", or "" without a deadline (or once ended).
func storyTimeLeft(_ match: StoryMatch, now: UInt64 = storyNow()) -> String {
    match.secondsLeft(at: now).map { "\(StoryDuration.describe($0)) left" } ?? ""
}

/// What a match's participants did besides writing: who declined, who missed turns (and
/// left for it), who quit, then how long the current one has: one line each.
func storyNotes(_ match: StoryMatch, now: UInt64 = storyNow()) -> [String] {
    var notes: [String] = []
    for participant in match.participants {
        let missed = participant.missed == 1 ? "1 turn" : "\(participant.missed) turns"
        if participant.declined {
            notes.append("\(participant.name) declined")
        } else if participant.missed >= StoryRules.missedTurnsToQuit, participant.quit {
            notes.append("\(participant.name) missed \(missed) in a row and left the match")
        } else if participant.missed > 0 {
            notes.append("\(participant.name) missed \(missed) in a row")
        }
    }
    if let name = match.currentName, let left = match.secondsLeft(at: now) {
        notes.append("\(name) has \(StoryDuration.describe(left)) left")
    }
    if let rematch = match.rematch { notes.append("rematch: match \(rematch)") }
    return notes
}

struct StoryList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Your matches, one line each: ID, your turn / their turn / ended, whose turn, participants, the opening, time left.")
    @OptionGroup var player: StoryPlayerOptions

    func run() async throws {
        try await withStoryClient(player) { client in
            let matches = try await client.list()
            if matches.isEmpty { say("no matches yet: snapcards story new --with NAME, or snapcards story automatch") }
            for match in matches {
                let group = match.ended ? "ended" : match.currentName == client.name ? "your turn" : "their turn"
                let names = match.participants.map { $0.declined ? $0.name + " (declined)" : $0.quit ? $0.name + " (quit)" : $0.name }
                    .joined(separator: ",")
                say("\(match.id)\t\(group)\t\(storyStatusLine(match))\t\(names)\t\(match.heading())\t\(storyTimeLeft(match))")
            }
        }
    }
}

struct StoryShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print a match's story, who declined or missed turns, the time left, then \"turn: NAME\" or \"ended\".")
    @Argument(help: "The match ID.") var id: String
    @OptionGroup var player: StoryPlayerOptions

    func run() async throws {
        let matchID = try parseMatchID(id)
        try await withStoryClient(player) { client in
            let match = try await client.match(.show(matchID))
            if !match.text.isEmpty { say(match.text) }
            if match.ended, match.textBytes > StoryRules.finishBytes { say("The story is finished") }
            if let left = match.lettersLeft { say("about \(left) letters left") }
            for note in storyNotes(match) { say(note) }
            say(storyStatusLine(match))
        }
    }
}

struct StoryTurn: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "turn",
        abstract: "Add up to \(StoryRules.maxTurnScalars) characters to the story; prints \"turn passed to NAME\" or \"story finished\".")
    @Argument(help: "The match ID.") var id: String
    @Argument(help: "Your text.") var text: String
    @OptionGroup var player: StoryPlayerOptions

    func run() async throws {
        let matchID = try parseMatchID(id)
        try await withStoryClient(player) { client in
            let match = try await client.match(.turn(matchID, text: text))
            say(match.currentName.map { "turn passed to \($0)" } ?? "story finished")
        }
    }
}

struct StoryQuit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "quit", abstract: "Leave a match for good.")
    @Argument(help: "The match ID.") var id: String
    @OptionGroup var player: StoryPlayerOptions

    func run() async throws {
        let matchID = try parseMatchID(id)
        try await withStoryClient(player) { client in
            let match = try await client.match(.quit(matchID))
            say("quit match \(match.id); " + (match.currentName.map { "turn: \($0)" } ?? "the match has ended"))
        }
    }
}

struct StoryDecline: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decline", abstract: "Say no to a match you were invited to, before writing in it; the others go on without you.")
    @Argument(help: "The match ID.") var id: String
    @OptionGroup var player: StoryPlayerOptions

    func run() async throws {
        let matchID = try parseMatchID(id)
        try await withStoryClient(player) { client in
            let match = try await client.match(.decline(matchID))
            say("declined match \(match.id); " + (match.currentName.map { "turn: \($0)" } ?? "the match has ended"))
        }
    }
}

struct StoryRematch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rematch",
        abstract: "Start a new match with an ended match's participants, the next one writing first; prints \"match ID\".",
        discussion: "Asked again (by anyone in it), it gives the same new match.")
    @Argument(help: "The ended match's ID.") var id: String
    @OptionGroup var player: StoryPlayerOptions

    func run() async throws {
        let matchID = try parseMatchID(id)
        try await withStoryClient(player) { client in
            let match = try await client.match(.rematch(matchID))
            say("match \(match.id)")
            say(storyStatusLine(match))
        }
    }
}

#if GUI
/// `snapcards story` alone: the window.
struct StoryWindow: WindowCommand {
    static let configuration = CommandConfiguration(
        commandName: "window", abstract: "Open the Story window (what `snapcards story` alone does).")
    @OptionGroup var player: StoryPlayerOptions
    @Option(help: "Open this match's view instead of the list (for screenshots and tests).") var open: String?
    @Flag(help: "Print the view's status as it changes (\"match 1, 3 turns: Waiting for Bob\"), notices and refusals.")
    var printStatus = false
    @OptionGroup var window: WindowFlags

    @MainActor func runInWindow(_ games: GameStarter) async throws {
        // The window falls back to the login name, as the other windows do.
        let name = player.name ?? savedPlayerName()
        let match = try open.map(parseMatchID)
        let endpoint = try player.endpoint()
        let trust = try player.tls.trust()
        try await runWindow(window, games: games) { app in
            let scene = StoryScene(app: app, endpoint: endpoint, name: name, open: match,
                                   joinCode: player.code.flatMap(JoinCode.normalized) ?? "", trust: trust)
            if printStatus { scene.onStatus = { say($0) } }
            return scene
        }
    }
}
#endif
