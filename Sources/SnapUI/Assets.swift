#if GUI
import SnapTable
import CSDL2
import Glibc
import SnapEngine

/// Where the game's images and sounds are, first match wins:
/// 1. `$SNAP_ASSETS` (an override);
/// 2. `Assets/` beside the executable, or in a folder above it (a checkout's
///    `.build/debug/snapcards` finds the repository's);
/// 3. the install prefix's `share/snapcards` (`PREFIX/bin/snapcards` → `PREFIX/share/snapcards`:
///    `/usr/share/snapcards` for the Debian package's `/usr/bin/snapcards`, as `scripts/package`
///    and `scripts/install` lay it out; `share/snapcards/Assets` is taken too);
/// 4. `Assets/` in the current directory.
/// A folder counts only if it holds `cards/AS.png`. Symbolic links to the executable are followed.
public func findAssetsDirectory(executable: String = CommandLine.arguments[0]) -> String? {
    func valid(_ path: String) -> Bool { access(path + "/cards/AS.png", R_OK) == 0 }
    if let env = getenv("SNAP_ASSETS").map({ String(cString: $0) }), !env.isEmpty, valid(env) { return env }
    // argv[0] may be a bare name found on PATH: /proc/self/exe is the running file.
    let resolved = realpathString("/proc/self/exe") ?? realpathString(executable)
    func parent(_ path: String) -> String? {
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
    if let binDirectory = resolved.flatMap(parent) {
        var directory = binDirectory
        for _ in 0..<6 {
            if valid(directory + "/Assets") { return directory + "/Assets" }
            guard let up = parent(directory), up != directory else { break }
            directory = up
        }
        if let prefix = parent(binDirectory) {
            let base = prefix == "/" ? "" : prefix
            for candidate in [base + "/share/snapcards", base + "/share/snapcards/Assets"] where valid(candidate) { return candidate }
        }
    }
    return valid("Assets") ? "Assets" : nil
}

func realpathString(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
}

/// Every image the game draws, loaded once as textures.
public final class Assets {
    public let directory: String
    private var faces: [Texture] = []
    public let back: Texture
    public let felt: Texture
    public let button: Texture
    public let buttonPressed: Texture
    public let buttonDisabled: Texture
    public let snapButton: Texture
    public let snapButtonPressed: Texture
    public let bubble: Texture
    public let smiley: Texture
    public let wrong: Texture
    public let highlight: Texture
    public let joker: Texture
    public let titleLetters: [Texture]

    public init(graphics: Graphics, directory: String) throws(SDLError) {
        self.directory = directory
        func load(_ name: String) throws(SDLError) -> Texture { try graphics.loadTexture(directory + "/" + name) }
        for card in Card.fullDeck { faces.append(try load("cards/\(card).png")) }
        back = try load("cards/back.png")
        felt = try load("table/felt.png")
        button = try load("ui/button.png")
        buttonPressed = try load("ui/button-pressed.png")
        buttonDisabled = try load("ui/button-disabled.png")
        snapButton = try load("ui/snap-button.png")
        snapButtonPressed = try load("ui/snap-button-pressed.png")
        bubble = try load("ui/bubble.png")
        smiley = try load("ui/smiley.png")
        wrong = try load("ui/wrong.png")
        highlight = try load("ui/highlight.png")
        joker = try load("ui/title-joker.png")
        var letters: [Texture] = []
        for letter in ["S", "N", "A", "P"] { letters.append(try load("ui/title-\(letter).png")) }
        titleLetters = letters
        graphics.setIcon(path: directory + "/ui/icon.png")
    }

    public func face(_ card: Card) -> Texture { faces[Int(card.id)] }
}
#endif
