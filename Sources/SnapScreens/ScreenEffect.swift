import SnapBots
import SnapTable

/// What a screen model asks of the window, as a value: the model decides, the scene that
/// draws it performs. Every screen's `handle(_:now:)` returns these, so a test reads what a
/// screen would do without a window, a clipboard, a settings file or a sound card.
public enum ScreenEffect: Equatable, Sendable {
    /// Put this text on the desktop's clipboard (Ctrl+C in a text field).
    case copyToClipboard(String)
    /// Save the player's name in the settings file.
    case saveName(String)
    /// Save the relay's address (HOST:PORT) in the settings file (the lobby's "Invite over the internet").
    case saveRelay(String)
    /// Play a sound (muted windows play none).
    case play(TableSound)
    /// Turn the sound on or off (M).
    case toggleMute
    /// Open another screen.
    case show(ScreenRoute)
    /// Host Game: make the game off the window's thread; its outcome comes back to the
    /// screen as an intent (`MenuModel.Intent.hosted`/`hostingFailed`).
    case startHosting(name: String)
    /// Sit down at a single-player table.
    case startSolo(SoloGame)
    /// Statistics: read this player's figures off the window's thread (the asking scene
    /// performs it); they come back to the screen as an intent (`StatisticsModel.Intent.read`).
    case readStatistics(player: String)
    /// Go back to the screen this one was opened over, which the asking scene keeps (the
    /// table Statistics was opened from): no route can make that screen again.
    case returnToOpener
    /// Something for the game the asking scene holds (the host's lobby's): that scene does
    /// it (a game is a network object), so `App.perform` skips it.
    case game(GameRequest)
    /// Close the window.
    case quit
}

/// The screens one screen can send the player to (the table and the lobby need a game,
/// so they are opened by the effects that make one).
public enum ScreenRoute: Equatable, Sendable {
    case menu
    case join
    case soloSetup
    case story(name: String)
    case statistics
}

/// A single-player game as the setup screen chose it.
public struct SoloGame: Equatable, Sendable {
    public var name: String
    public var opponents: Int
    public var level: BotLevel

    public init(name: String, opponents: Int, level: BotLevel) {
        self.name = name
        self.opponents = opponents
        self.level = level
    }
}

/// A message box's text (an alert with OK, shown over a screen).
public struct Alert: Equatable, Sendable {
    public var title: String
    public var message: String

    public init(_ title: String, _ message: String) {
        self.title = title
        self.message = message
    }
}
