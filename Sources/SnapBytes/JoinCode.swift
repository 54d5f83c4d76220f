/// The short code a TCP host shows in its lobby and a joining player types
/// (`snapcards join --code`), so that reaching the port is not enough to sit down.
///
/// Six characters from a 31-character alphabet without the easily confused 0, O, 1, I
/// and L. That is 31⁶ ≈ 887 million codes; with the
/// host slowing repeated wrong codes from one address, guessing is not a way in.
public enum JoinCode {
    /// Upper-case letters and digits that cannot be mistaken for one another.
    public static let alphabet: [Character] = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
    public static let length = 6
    /// The most bytes `hello.joinCode` may carry on the wire (the host checks the rest).
    public static let maxWireBytes = 16

    /// A fresh random code.
    public static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
    }

    /// What a person typed, as a code: spaces and dashes dropped, lower case raised.
    /// Nil if it is not `length` characters of the alphabet.
    public static func normalized(_ text: String) -> String? {
        let kept = text.uppercased().filter { $0 != " " && $0 != "-" }
        guard kept.count == length, kept.allSatisfy(alphabet.contains) else { return nil }
        return kept
    }

    /// Why `text` is not a code, in words (for `--code`).
    public static func problem(_ text: String) -> String? {
        normalized(text) == nil
            ? "a join code is \(length) characters from \(String(alphabet)) (no 0, O, 1, I or L)"
            : nil
    }
}
