import Foundation

/// The repository's documents as the tests that check their quotes read them: a document's
/// text with every run of spaces and line breaks as one space, so a quote matches however
/// the document wraps it. The one reader for every "the document quotes the code" test.
public enum Documents {
    /// `docs/NAME` (e.g. "PROTOCOL.md"), on one line.
    public static func text(_ name: String) throws -> String {
        oneLine(try original(name))
    }

    /// `docs/NAME` as written, line by line: for a test that reads a block of it (an example).
    public static func original(_ name: String) throws -> String {
        let url = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../../docs/\(name)").standardized
        return try String(contentsOf: url, encoding: .utf8)
    }

    /// `text` with every run of spaces and line breaks as one space.
    public static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    }

    /// Whether `docs/NAME` holds `quote` (however either wraps it).
    public static func quotes(_ name: String, _ quote: String) throws -> Bool {
        try text(name).contains(oneLine(quote))
    }

    /// The numbers `docs/NAME` writes where `template` has `{N}`, the rest of `template`
    /// quoted as it stands (however either wraps): for a test that takes a number from the
    /// document and compares it with what the program does. Nil when no sentence matches.
    public static func numbers(_ name: String, _ template: String) throws -> [Int]? {
        let pattern = oneLine(template).components(separatedBy: "{N}").map(NSRegularExpression.escapedPattern(for:))
            .joined(separator: "([0-9]+)")
        let document = try text(name)
        guard let match = try NSRegularExpression(pattern: pattern).firstMatch(in: document, range: NSRange(document.startIndex..., in: document))
        else { return nil }
        return (1..<match.numberOfRanges).compactMap { Range(match.range(at: $0), in: document).flatMap { Int(document[$0]) } }
    }
}
