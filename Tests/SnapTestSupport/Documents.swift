import Foundation

/// The repository's documents as the tests that check their quotes read them: a document's
/// text with every run of spaces and line breaks as one space, so a quote matches however
/// the document wraps it. The one reader for every "the document quotes the code" test.
public enum Documents {
    /// `docs/NAME` (e.g. "PROTOCOL.md"), on one line.
    public static func text(_ name: String) throws -> String {
        let url = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../../docs/\(name)").standardized
        return oneLine(try String(contentsOf: url, encoding: .utf8))
    }

    /// `text` with every run of spaces and line breaks as one space.
    public static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    }

    /// Whether `docs/NAME` holds `quote` (however either wraps it).
    public static func quotes(_ name: String, _ quote: String) throws -> Bool {
        try text(name).contains(oneLine(quote))
    }
}
