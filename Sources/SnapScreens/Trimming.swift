extension StringProtocol {
    /// Without the spaces and tabs at either end: what Foundation's
    /// `trimmingCharacters(in: .whitespaces)` (Unicode's Zs and U+0009) left, without full
    /// Foundation in the binary (docs/PERFORMANCE.md, "The player's binary").
    public func trimmingWhitespace() -> String {
        trimming { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
    }

    /// Without the white space and line breaks at either end: Foundation's
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` (Unicode's Z*, U+000A–U+000D, U+0085).
    public func trimmingWhitespaceAndNewlines() -> String {
        trimming { scalar in
            switch scalar.properties.generalCategory {
            case .spaceSeparator, .lineSeparator, .paragraphSeparator: return true
            default: return scalar == "\t" || (0x0A...0x0D).contains(scalar.value) || scalar == "\u{85}"
            }
        }
    }

    /// Trims Unicode scalars, not characters, as Foundation did.
    private func trimming(_ drop: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !drop($0) }) else { return "" }
        let last = scalars.lastIndex { !drop($0) }!
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}
