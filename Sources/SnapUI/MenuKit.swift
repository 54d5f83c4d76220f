#if GUI
import SnapBytes
import SnapScreens
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
                return ("Host busy", "\(Wording.shortPlace(place)) is too busy to let anyone in. Try again in a moment.")
            case .cannotConnect(let place, let why):
                return ("Cannot connect", "No game answered at \(Wording.shortPlace(place)) (\(Wording.shortReason(why))).")
            case .pathTooLong:
                return ("Name too long", "That name makes the socket path too long. Choose a shorter name.")
            case .cannotListen(_, let why):
                return ("Cannot host", "This computer would not open the game: \(Wording.shortReason(why)).")
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
}
#endif
