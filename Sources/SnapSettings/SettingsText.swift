import SnapBytes

/// The settings file's text (`key=value` lines, `#` comments), without the file: SnapUI's
/// `Settings` reads and writes the file, this says what its text means. Kept free of SDL
/// and I/O so that the fuzzer (Fuzz/SettingsFuzz.swift) can feed it any text.
public enum SettingsText {
    public typealias Entry = (key: String, value: String)

    /// The name (the last valid `name=` line, taken exactly as written; nil if none) and
    /// every other key's first value, in file order. Never fails: what is not a setting
    /// (a line without `=`, an empty key, a line whose first non-blank is `#`) is skipped.
    public static func parse(_ text: String) -> (name: String?, other: [Entry]) {
        var name: String?
        var other: [Entry] = []
        var seen: Set<String> = []  // other's keys: a 64 KiB file of short keys was quadratic
        for rawLine in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            let line = String(rawLine)
            if line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = String(line[..<equals]).trimmingSpaces
            let value = String(line[line.index(after: equals)...])
            // " #x=1" is a comment too: kept as the key "#x" it was saved as the comment "#x=1".
            guard !key.isEmpty, !key.hasPrefix("#") else { continue }
            switch key {
            case "name":
                // A name is taken exactly as written, or not at all.
                if PlayerName.isValid(value) { name = value }
            default:
                if seen.insert(key).inserted { other.append((key, value)) }
            }
        }
        return (name, other)
    }

    /// The file's text for `name` and the other keys, which `parse` reads back.
    public static func render(name: String, other: [Entry]) -> String {
        var text = "# Snap! settings\n"
        // A name never holds a newline (PlayerName forbids control characters); be safe anyway.
        text += "name=" + name.filter { $0 != "\n" && $0 != "\r" } + "\n"
        for (key, value) in other { text += key + "=" + value + "\n" }
        return text
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var result = Substring(self)
        while result.first == " " || result.first == "\t" { result.removeFirst() }
        while result.last == " " || result.last == "\t" { result.removeLast() }
        return String(result)
    }
}
