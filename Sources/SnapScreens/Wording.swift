/// Words from the network boiled down to what a player reads: a sentence from a host's
/// closing message, a place, a reason.
public enum Wording {
    /// A host's closing words as a dialog's body under `title`: not restating the title,
    /// without the command-line hints meant for `snapcards join` in a terminal, starting with a
    /// capital and ending with a full stop. "wrong join code: ask the host for …" under
    /// "Wrong join code" reads "Ask the host for …".
    public static func sentence(_ message: String, after title: String) -> String {
        var text = Substring(message.trimmingWhitespace())
        if text.lowercased().hasPrefix(title.lowercased()) {
            text = text.dropFirst(title.count).drop { ":;,.—- ".contains($0) }
        }
        for hint in ["(watch it with snapcards join --watch)", "(snapcards join --code XXXXXX)"] {
            if let range = text.firstRange(of: hint) { text.removeSubrange(range) }
        }
        var sentence = text.trimmingWhitespace()
        while sentence.hasSuffix(":") || sentence.hasSuffix(",") { sentence.removeLast() }
        guard let first = sentence.first else { return "The host closed the connection." }
        sentence = first.uppercased() + sentence.dropFirst()
        if !(sentence.hasSuffix(".") || sentence.hasSuffix("!") || sentence.hasSuffix("?")) { sentence += "." }
        return sentence
    }

    /// "unix:/run/user/1000/snap/Ann.sock" → "Ann"; "tcp:host:port" → "host:port".
    public static func shortPlace(_ place: String) -> String {
        if place.hasPrefix("unix:") {
            let path = place.dropFirst(5)
            let file = path.split(separator: "/").last.map(String.init) ?? String(path)
            return file.hasSuffix(".sock") ? "\"" + String(file.dropLast(5)) + "\"" : file
        }
        if place.hasPrefix("tcp:") { return String(place.dropFirst(4)) }
        return place
    }

    /// NIO's error descriptions, boiled down to the part a player can act on.
    public static func shortReason(_ why: String) -> String {
        let lower = why.lowercased()
        if lower.contains("refused") { return "connection refused" }
        if lower.contains("no such file") || lower.contains("no such socket") { return "the game is gone" }
        if lower.contains("timed out") || lower.contains("timeout") { return "no answer in time" }
        if lower.contains("unreachable") { return "network unreachable" }
        if lower.contains("name or service") || lower.contains("resolve") || lower.contains("lookup") { return "unknown host name" }
        if lower.contains("address already in use") { return "address already in use" }
        if lower.contains("permission") { return "permission denied" }
        if lower.contains("unreadable") || lower.contains("magic") { return "it is not a Snap! game" }
        if lower.contains("closed the connection") || lower.contains("reset") { return "it hung up" }
        if lower.contains("nothing heard") { return "it stopped answering" }
        return why.count > 80 ? String(why.prefix(77)) + "…" : why
    }
}
