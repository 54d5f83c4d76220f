#if GUI
import SnapScreens
import SnapBytes
import SnapSettings
import SnapTable
import Glibc
import SnapProtocol

/// What the game remembers between runs: the player's name, and the relay Host Game's
/// "Invite over the internet" opens a room at (`relay=HOST:PORT`, docs/RELAY.md).
///
/// Kept in `$XDG_CONFIG_HOME/snap/settings` (else `~/.config/snap/settings`), a tiny
/// `key=value` text file. A missing, unreadable or corrupt file is never an error:
/// the name falls back to the login name (`$USER`, if it is a valid player name),
/// else "Player". Keys this version does not know are kept when saving.
public struct Settings: Equatable {
    public var name: String
    /// Other `key=value` lines found in the file, written back unchanged.
    var other: [(key: String, value: String)] = []

    public init(name: String) {
        self.name = name
    }

    /// The relay's address as the file holds it (HOST:PORT, checked where it is used); nil
    /// when there is none. Kept among the other lines, where a version without it keeps it too.
    public var relay: String? {
        get {
            let value = other.first { $0.key == "relay" }?.value.trimmingWhitespace()
            return value?.isEmpty == false ? value : nil
        }
        set {
            let value = newValue?.trimmingWhitespace() ?? ""
            if let index = other.firstIndex(where: { $0.key == "relay" }) {
                if value.isEmpty { other.remove(at: index) } else { other[index].value = value }
            } else if !value.isEmpty {
                other.append((key: "relay", value: value))
            }
        }
    }

    public static func == (a: Settings, b: Settings) -> Bool {
        a.name == b.name && a.other.map(\.key) == b.other.map(\.key) && a.other.map(\.value) == b.other.map(\.value)
    }

    /// The login name if it is a valid player name, else "Player".
    public static var defaultName: String {
        if let user = environment("USER"), PlayerName.isValid(user) { return user }
        return "Player"
    }

    /// The settings file's path (it may not exist yet).
    public static var path: String { configDirectory + "/snap/settings" }

    /// `$XDG_CONFIG_HOME` when it is an absolute path (as the XDG spec asks), else `~/.config`.
    static var configDirectory: String {
        if let xdg = environment("XDG_CONFIG_HOME"), xdg.hasPrefix("/") { return xdg }
        return homeDirectory + "/.config"
    }

    static var homeDirectory: String {
        if let home = environment("HOME"), home.hasPrefix("/") { return home }
        if let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir {
            let home = String(cString: dir)
            if home.hasPrefix("/") { return home }
        }
        return "/tmp"
    }

    static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    /// The saved settings, or the defaults; never fails.
    public static func load() -> Settings {
        load(from: path)
    }

    static func load(from path: String) -> Settings {
        var settings = Settings(name: defaultName)
        guard let text = readSmallFile(path) else { return settings }
        let parsed = SettingsText.parse(text)
        if let name = parsed.name { settings.name = name }
        settings.other = parsed.other
        return settings
    }

    /// Writes the file (creating its folders); failures are ignored: the game plays on.
    public func save() {
        _ = save(to: Settings.path)
    }

    @discardableResult
    func save(to path: String) -> Bool {
        guard let slash = path.lastIndex(of: "/") else { return false }
        let directory = String(path[..<slash])
        guard Settings.makeDirectories(directory) else { return false }
        let text = SettingsText.render(name: name, other: other)
        // Write beside, then rename: a crash mid-write never leaves half a file.
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                break
            }
            written += n
        }
        close(fd)
        guard written == bytes.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }

    /// `mkdir -p`.
    static func makeDirectories(_ path: String) -> Bool {
        var info = stat()
        if stat(path, &info) == 0 { return info.st_mode & S_IFMT == S_IFDIR }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            guard makeDirectories(String(path[..<slash])) else { return false }
        }
        return mkdir(path, 0o755) == 0 || errno == EEXIST
    }

    /// The file's text, if it is a regular file of at most 64 KiB.
    static func readSmallFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size <= 65_536 else { return nil }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 4_096) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { break }
            bytes += buffer[0..<n]
            if bytes.count > 65_536 { return nil }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
#endif
