#if GUI
import SnapBytes
import SnapPlatform
import SnapTable
import Glibc
import SnapBots
import SnapEngine
import SnapNet
import SnapProtocol

/// The menu screens' shared look (felt, headings, panels, wrapped text) and words
/// (errors and names in plain sentences).
enum MenuKit {
    static let labelColor = Color(255, 240, 200)
    static let hintColor = Color(210, 228, 210)
    static let errorColor = Color(255, 150, 130)
    static let panelColor = Color(0, 0, 0, 85)
    static let rowColor = Color(255, 255, 255, 22)
    static let rowHoverColor = Color(255, 255, 255, 48)

    static func clamp(_ x: Double) -> Double { max(0, min(1, x)) }
    static func easeOutCubic(_ t: Double) -> Double { 1 - pow(1 - t, 3) }
    static func easeOutBack(_ t: Double, overshoot s: Double = 1.70158) -> Double {
        let p = t - 1
        return 1 + (s + 1) * p * p * p + s * p * p
    }

    /// Felt, darkened a little towards the top and bottom edges.
    static func background(_ graphics: Graphics, _ assets: Assets) {
        graphics.backdrop("menu felt") { graphics in
            graphics.tile(assets.felt, tileSize: Size(256, 256))
            shadeEdges(graphics, depth: 120, darkest: 54, sides: false)
        }
    }

    /// Darkens the edges: `darkest` (alpha) at the edge fading to nothing `depth` points in,
    /// in 4-point steps (an alpha step of 2 or 3, too little to show as a band); the sides
    /// (if shaded) half as dark.
    static func shadeEdges(_ graphics: Graphics, depth: Double, darkest: Double, sides: Bool) {
        let step = 4.0
        let steps = Int(depth / step)
        for index in 0..<steps {
            let alpha = darkest * (1 - Double(index) / Double(steps))
            let shade = Color(0, 0, 0, UInt8(alpha.rounded()))
            let inset = Double(index) * step
            graphics.fill(Rect(x: 0, y: inset, width: logicalSize.width, height: step), shade)
            graphics.fill(Rect(x: 0, y: logicalSize.height - inset - step, width: logicalSize.width, height: step), shade)
            guard sides else { continue }
            let side = Color(0, 0, 0, UInt8((alpha / 2).rounded()))
            graphics.fill(Rect(x: inset, y: 0, width: step, height: logicalSize.height), side)
            graphics.fill(Rect(x: logicalSize.width - inset - step, y: 0, width: step, height: logicalSize.height), side)
        }
    }

    /// A screen's big title, gold.
    static func heading(_ graphics: Graphics, _ text: String, y: Double = 34) {
        graphics.text(text, at: Point(512, y), size: 40, bold: true, color: .gold)
    }

    /// A small, quiet line along the bottom edge.
    static func footer(_ graphics: Graphics, _ text: String) {
        graphics.text(text, at: Point(512, 738), size: 13, color: Color(200, 220, 200, 200))
    }

    /// A rounded, translucent box.
    static func panel(_ graphics: Graphics, _ rect: Rect, _ color: Color = panelColor, radius: Double = 14) {
        graphics.fillRoundedRect(rect, color, radius: radius)
    }

    /// A label above a field.
    static func label(_ graphics: Graphics, _ text: String, at point: Point) {
        graphics.text(text, at: point, size: 17, bold: true, color: labelColor, align: .left)
    }

    /// How wide `text` is drawn.
    static func width(_ graphics: Graphics, _ text: String, size: Int, bold: Bool = false) -> Double {
        guard let texture = graphics.textTexture(text, size: size, bold: bold) else { return 0 }
        return Double(texture.pixelWidth) / 2
    }

    /// `text` broken into lines no wider than `width` (a word longer than that is cut).
    static func wrap(_ graphics: Graphics, _ text: String, width: Double, size: Int, bold: Bool = false) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            let candidate = line.isEmpty ? String(word) : line + " " + word
            if self.width(graphics, candidate, size: size, bold: bold) <= width {
                line = candidate
                continue
            }
            if !line.isEmpty { lines.append(line) }
            var piece = String(word)
            while self.width(graphics, piece, size: size, bold: bold) > width, piece.count > 1 {
                var cut = piece
                while self.width(graphics, cut, size: size, bold: bold) > width, cut.count > 1 { cut.removeLast() }
                lines.append(cut)
                piece.removeFirst(cut.count)
            }
            line = piece
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// Draws wrapped text (at most `maxLines`, the last one ending in "…" if cut); returns the height used.
    @discardableResult
    static func paragraph(_ graphics: Graphics, _ text: String, at origin: Point, width: Double, size: Int,
                          color: Color, bold: Bool = false, align: Graphics.Alignment = .center,
                          maxLines: Int = 3, shadow: Bool = true) -> Double {
        var lines = wrap(graphics, text, width: width, size: size, bold: bold)
        if lines.count > maxLines {
            lines = Array(lines.prefix(maxLines))
            var last = lines[maxLines - 1]
            while !last.isEmpty, self.width(graphics, last + "…", size: size, bold: bold) > width { last.removeLast() }
            lines[maxLines - 1] = last + "…"
        }
        let lineHeight = Double(size) * 1.35
        for (index, line) in lines.enumerated() {
            graphics.text(line, at: Point(origin.x, origin.y + Double(index) * lineHeight), size: size, bold: bold,
                          color: color, align: align, shadow: shadow)
        }
        return Double(lines.count) * lineHeight
    }

    /// A selectable option drawn as a button: blue and ringed in gold when chosen, grey otherwise.
    static func drawToggle(_ graphics: Graphics, _ assets: Assets, _ button: Button, selected: Bool) {
        if selected {
            panel(graphics, button.frame.insetBy(-4), Color(255, 214, 90, 200), radius: 12)
        }
        let image = button.isPressed ? assets.buttonPressed : (selected ? assets.button : assets.buttonDisabled)
        graphics.draw(image, in: button.frame)
        let offset = button.isPressed ? 3.0 : 0
        graphics.text(button.label, at: Point(button.frame.center.x, button.frame.y + 9 + offset), size: 18, bold: true,
                      color: selected || button.isPressed ? .white : Color(70, 70, 70), shadow: selected || button.isPressed)
    }

    /// The caret of a focused field blinks twice a second: ask for a redraw when it changes.
    static func caretPhase(_ now: Double) -> Int { Int(now * 2) % 2 }

    /// The next free-looking variant of a taken name: "Ann" → "Ann 2", "Ann 2" → "Ann 3",
    /// shortened to fit a name's 20 characters.
    static func nextVariant(of name: String) -> String {
        var base = name
        var number = 2
        if let space = name.lastIndex(of: " "), let n = Int(name[name.index(after: space)...]), n >= 1, n < 999_999 {
            base = String(name[..<space])
            number = n + 1
        }
        let suffix = " \(number)"
        var scalars = Array(base.unicodeScalars.prefix(PlayerName.maxScalars - suffix.unicodeScalars.count))
        while scalars.last == " " { scalars.removeLast() }
        var text = String(String.UnicodeScalarView(scalars))
        if text.isEmpty { text = "Player" }
        return text + suffix
    }

    /// A character a name may not hold, in words: the character itself when it can be
    /// shown, else what kind it is (never a code point like U+0007).
    static func forbiddenCharacterSentence(_ scalar: Unicode.Scalar) -> String {
        let what: String
        switch scalar.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned: what = "an invisible control character"
        case .spaceSeparator, .lineSeparator, .paragraphSeparator: what = "that kind of space"
        default: what = "\u{201C}\(Character(scalar))\u{201D}"
        }
        return "A name cannot hold \(what): use letters, digits, spaces and - _ . '"
    }

    /// Why `name` cannot be a player's name, in words; nil if it can.
    static func nameProblem(_ name: String) -> String? {
        do {
            try PlayerName.validate(name)
            return nil
        } catch {
            guard case .badName(let problem) = error else { return "\(error)" }
            switch problem {
            case .empty: return "Please type a name."
            case .leadingOrTrailingWhitespace: return "A name cannot start or end with a space."
            case .consecutiveSpaces: return "A name cannot have two spaces in a row."
            case .forbiddenCharacter(let scalar): return forbiddenCharacterSentence(scalar)
            case .tooManyCharacters: return "A name holds at most \(PlayerName.maxScalars) characters."
            case .tooManyBytes: return "That name is too long: use fewer accented or non-Latin letters."
            }
        }
    }

    /// The question a changed certificate asks: both fingerprints, short, and what to do.
    static func certificateQuestion(_ refusal: TLSRefusal) -> String {
        switch refusal {
        case .changed(let address, let remembered, let presented):
            "\(address) now shows \(presented.short), not \(remembered.short). Someone may be in between: "
                + "accept only if the host says it changed."
        case .notAnnounced(let address, let announced, let presented):
            "\(address) shows \(presented.short), not \(announced.short) as announced. "
                + "Accept only if the host's lobby shows \(presented.short)."
        default: "\(refusal)"
        }
    }

    /// A short title and a readable sentence for an error of starting or joining a game.
    static func describe(_ error: Error, hosting name: String? = nil,
                         renameAdvice: String = "Choose another name.") -> (title: String, message: String) {
        if let net = error as? NetError {
            switch net {
            case .hostNameTaken:
                return ("Name in use", "A game called \(name ?? "that") is already open here. " + renameAdvice)
            case .badAddress(let text):
                return ("Not an address", "\"\(text)\" is not HOST:PORT, e.g. 192.168.1.20:7777.")
            case .badPort(let text, let range):
                return ("Not a port", "The port in \"\(text)\" must be \(range.lowerBound) to \(range.upperBound).")
            case .hostBusy(let place, _):
                return ("Host busy", "\(shortPlace(place)) is too busy to let anyone in. Try again in a moment.")
            case .cannotConnect(let place, let why):
                return ("Cannot connect", "No game answered at \(shortPlace(place)) (\(shortReason(why))).")
            case .pathTooLong:
                return ("Name too long", "That name makes the socket path too long. Choose a shorter name.")
            case .cannotListen(_, let why):
                return ("Cannot host", "This computer would not open the game: \(shortReason(why)).")
            case .socketDirectory(let path, let why):
                return ("Cannot host", "The folder \(path) cannot be used: \(why).")
            case .noHost(let why):
                return ("No answer", why)
            case .untrusted(let refusal):
                switch refusal {
                case .changed: return ("Certificate changed", "\(refusal)")
                case .notInvited(_, let invited, let presented):
                    // Short fingerprints: the whole ones do not fit a dialog's four lines.
                    return ("Not trusted", "The host shows the certificate \(presented.short), not \(invited.short) as the "
                            + "invitation says: it was changed, or someone is in between. Nothing was sent.")
                case .noTLS: return ("Cannot connect", "\(refusal)")
                default: return ("Not trusted", "\(refusal)")
                }
            }
        }
        if let problem = error as? TLSSetupError {
            return ("Cannot host", "The encryption certificate cannot be used: \(problem).")
        }
        if let problem = error as? ProtocolError { return ("Invalid name", "\(problem)") }
        return ("Something went wrong", "\(error)")
    }

    /// A host's closing words as a dialog's body under `title`: not restating the title,
    /// without the command-line hints meant for `snapcards join` in a terminal, starting with a
    /// capital and ending with a full stop. "wrong join code: ask the host for …" under
    /// "Wrong join code" reads "Ask the host for …".
    static func sentence(_ message: String, after title: String) -> String {
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
    static func shortPlace(_ place: String) -> String {
        if place.hasPrefix("unix:") {
            let path = place.dropFirst(5)
            let file = path.split(separator: "/").last.map(String.init) ?? String(path)
            return file.hasSuffix(".sock") ? "\"" + String(file.dropLast(5)) + "\"" : file
        }
        if place.hasPrefix("tcp:") { return String(place.dropFirst(4)) }
        return place
    }

    /// NIO's error descriptions, boiled down to the part a player can act on.
    static func shortReason(_ why: String) -> String {
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
#endif
