#if GUI
import CSDL2
import Logging
import SnapNet
import SnapPlatform
import SnapProtocol
import SnapScreens

extension App {
    /// Performs what a screen model asked for, in order; the scene change, if one was asked.
    /// `startHosting` is the asking scene's own (it keeps the game being made): skipped here;
    /// so are `readStatistics` (the scene keeps the reading), `returnToOpener` (the scene keeps its opener)
    /// and `game` (the scene keeps the game).
    public func perform(_ effects: [ScreenEffect]) -> SceneChange? {
        var change: SceneChange?
        for effect in effects {
            switch effect {
            case .copyToClipboard(let text):
                copyToClipboard(text)
            case .saveName(let name):
                changeSettings { $0.name = name }
            case .saveRelay(let relay):
                changeSettings { $0.relay = relay }
            case .play(let sound):
                audio.play(sound)
            case .toggleMute:
                audio.isMuted.toggle()
            case .show(let route):
                change = .show(open(route))
            case .startSolo(let game):
                let client = games.solo(name: game.name, opponents: game.opponents, level: game.level, directories: directories,
                                        logger: logger)
                change = .show(TableScene(app: self, client: client))
            case .quit:
                change = .quit
            case .startHosting, .readStatistics, .returnToOpener, .game:
                break
            }
        }
        return change
    }

    /// Puts `text` on the desktop's clipboard; false (and a warning logged) when it took nothing.
    @discardableResult
    public func copyToClipboard(_ text: String) -> Bool {
        guard SDL_SetClipboardText(text) != 0 else { return true }
        logger.warning("the clipboard took nothing: \(SDLError("SDL_SetClipboardText"))")
        return false
    }

    /// The screen a route names, with what it needs read here (the settings file), not in the scene.
    public func open(_ route: ScreenRoute) -> Scene {
        switch route {
        case .menu: menu()
        case .join: JoinScene(app: self)
        case .soloSetup: SoloSetupScene(app: self, savedName: settings.name)
        case .story(let name): StoryScene(app: self, name: name)
        case .statistics: StatisticsScene(app: self)
        }
    }

    /// The main menu under the saved name; `notice`: why the player landed here.
    public func menu(notice: Alert? = nil) -> MenuScene {
        MenuScene(app: self, playerName: settings.name, notice: notice)
    }

    /// The settings file of this window's directories, as saved now.
    public var settings: Settings { Settings.load(from: directories.settings) }

    /// Reads the settings file, changes it, and saves it (`directories.settings`): the one
    /// place a screen's choice (the name, the relay) is kept.
    public func changeSettings(_ change: (inout Settings) -> Void) {
        var settings = self.settings
        change(&settings)
        settings.save(to: directories.settings)
    }
}
#endif
