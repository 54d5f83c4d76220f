#if GUI
import CSDL2
import Foundation
import SnapTestSupport
import SnapTable
import Testing
@testable import SnapUI

// Issue 44: a window of another shape than the 1024×768 table shows it letterboxed on the
// background colour (it showed a white strip on the right of a 1600×1000 window's
// screenshot, black bars on screen), and a translucent panel is one even colour at any
// scale (its rounded corners' rows showed as lines across it in a scaled window).

/// The letterbox, as the real program shows it.
@Suite("A window of another shape than the table", .blocksThreads)
struct LetterboxWindowTests {
    @Test("a 1600×1000 Join screen: the table centred, the bars either side of it the background colour")
    func joinScreenLetterbox() throws {
        let path = screenshotPath("letterbox-join-1600x1000")
        let run = try runWindowed(["menu", "--scene", "join", "--size", "1600x1000", "--quit-after", "1.5", "--screenshot", path])
        #expect(run.status == 0, "\(run.output)")
        let shot = try Screenshot(path: path)
        #expect(shot.width == 1600 && shot.height == 1000)
        // Scaled by 1000/768, the table is 1333 pixels wide and 133 from the left.
        let table = letterboxedTable(width: 1600, height: 1000)
        #expect(table.x == 133 && table.width == 1333)
        let wrong = pixelsNotBackground(shot, outside: table)
        #expect(wrong.count == 0, "letterbox pixels not the background, e.g. \(wrong.prefix(4))")
        // The felt starts right beside the left bar (the table is not drawn at the image's left).
        let feltColumn = (0..<1000).filter { !isBackground(shot.rgb(table.x + 2, $0)) }.count
        #expect(feltColumn > 950, "only \(feltColumn) of column \(table.x + 2)'s pixels are the table's")
    }
}

/// Where SDL puts the 1024×768 table in a window (`SDL_RenderSetLogicalSize`'s letterbox).
func letterboxedTable(width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int) {
    let scale = min(Double(width) / 1024, Double(height) / 768)
    let w = min(width, Int((1024 * scale).rounded(.down))), h = min(height, Int((768 * scale).rounded(.down)))
    return ((width - w) / 2, (height - h) / 2, w, h)
}

private func isBackground(_ p: (r: Int, g: Int, b: Int)) -> Bool {
    let c = Graphics.background
    return abs(p.r - Int(c.r)) <= 2 && abs(p.g - Int(c.g)) <= 2 && abs(p.b - Int(c.b)) <= 2
}

/// Every pixel of `shot` outside `table` (the letterbox) that is not the background colour.
private func pixelsNotBackground(_ shot: Screenshot, outside table: (x: Int, y: Int, width: Int, height: Int)) -> [(Int, Int)] {
    var wrong: [(Int, Int)] = []
    for y in 0..<shot.height {
        for x in 0..<shot.width {
            let inside = x >= table.x && x < table.x + table.width && y >= table.y && y < table.y + table.height
            if !inside, !isBackground(shot.rgb(x, y)) { wrong.append((x, y)) }
        }
    }
    return wrong
}

extension InProcessWindows {
    /// `Graphics` itself, in a hidden window in this process (SDL's offscreen driver).
    @Suite("Panels and the letterbox, drawn in the test process", .blocksThreads, .serialized)
    struct PanelAndLetterboxTests {
        init() {
            setenv("SDL_VIDEODRIVER", "offscreen", 0)
            setenv("SDL_AUDIODRIVER", "dummy", 0)
            SDL_Init(SDL_INIT_VIDEO)
        }

        static let felt = Color(40, 120, 60)
        /// About the Join screen's list of games.
        static let panelRect = Rect(x: 222, y: 262, width: 580, height: 330)

        @Test("a translucent panel is one even colour, with no line along its corners, at any window size",
              arguments: ["1600x1000", "700x500", "800x600", "1280x720", "1366x768", "1920x1080", "1024x768", "2048x1536"])
        func panelIsEven(size: String) throws {
            let parts = size.split(separator: "x").compactMap { Int($0) }
            let graphics = try Graphics(title: "panel", hidden: true, size: (parts[0], parts[1]), renderer: .software, fonts: Fonts())
            graphics.fill(Rect(x: 0, y: 0, width: 1024, height: 768), Self.felt)
            MenuKit.panel(graphics, Self.panelRect)
            let table = try TablePixels(graphics)
            let s = table.scale
            // The panel's box in pixels, with a margin of felt around it.
            let left = Int(Self.panelRect.x * s) - 3, right = Int((Self.panelRect.x + Self.panelRect.width) * s) + 3
            let top = Int(Self.panelRect.y * s) - 3, bottom = Int((Self.panelRect.y + Self.panelRect.height) * s) + 3
            let middle = (left + right) / 2
            let panel = table.rgb(middle, (top + bottom) / 2)
            func near(_ a: (r: Int, g: Int, b: Int), _ b: (r: Int, g: Int, b: Int)) -> Bool {
                abs(a.r - b.r) <= 1 && abs(a.g - b.g) <= 1 && abs(a.b - b.b) <= 1
            }
            let felt = (r: Int(Self.felt.r), g: Int(Self.felt.g), b: Int(Self.felt.b))
            #expect(!near(panel, felt), "no panel drawn: \(panel)")
            // Each pixel is the felt or the panel's colour: a row filled twice would be darker.
            var otherColours: [String] = []
            // Each pixel row is felt, then one run of panel, then felt; the panel's rows follow
            // each other with no row of felt between (a row left out shows the felt through).
            var panelRows: [Int] = []
            var brokenRows: [Int] = []
            for y in top...bottom {
                var runs = 0
                var previous = false
                for x in left...right {
                    let p = table.rgb(x, y)
                    let isPanel = near(p, panel)
                    if !isPanel, !near(p, felt), otherColours.count < 8 { otherColours.append("(\(x), \(y)): \(p)") }
                    if isPanel, !previous { runs += 1 }
                    previous = isPanel
                }
                if runs > 0 { panelRows.append(y) }
                if runs > 1 || (runs == 1 && !near(table.rgb(middle, y), panel)) { brokenRows.append(y) }
            }
            #expect(otherColours.isEmpty, "at \(size), pixels neither felt \(felt) nor panel \(panel): \(otherColours)")
            #expect(brokenRows.isEmpty, "at \(size), rows not one run of panel: \(brokenRows)")
            let expectedRows = Int((Self.panelRect.height * s).rounded())
            #expect(panelRows.count == (panelRows.last ?? 0) - (panelRows.first ?? 0) + 1,
                    "at \(size), rows of felt between the panel's rows: panel rows \(panelRows.first ?? 0)…\(panelRows.last ?? 0), \(panelRows.count) of them")
            #expect(abs(panelRows.count - expectedRows) <= 1, "at \(size), \(panelRows.count) rows of panel, not \(expectedRows)")
            // Rounded: the first row is narrower than the middle one.
            if let first = panelRows.first {
                let width = { (y: Int) in (left...right).filter { near(table.rgb($0, y), panel) }.count }
                #expect(width(first) < width((top + bottom) / 2), "at \(size), square corners")
            }
        }

        @Test("the letterbox is the background colour: the first frame, after frames, and after the window is resized")
        func letterboxCleared() throws {
            let graphics = try Graphics(title: "letterbox", hidden: true, size: (1600, 1000), renderer: .software, fonts: Fonts())
            func frame() { graphics.fill(Rect(x: 0, y: 0, width: 1024, height: 768), Self.felt) }
            func check(_ moment: String) throws {
                let path = screenshotPath("letterbox-\(moment.replacingOccurrences(of: " ", with: "-"))")
                try graphics.screenshot(to: path)
                let shot = try Screenshot(path: path)
                let table = letterboxedTable(width: shot.width, height: shot.height)
                let wrong = pixelsNotBackground(shot, outside: table)
                #expect(wrong.count == 0, "\(moment) (\(shot.width)×\(shot.height)): letterbox pixels not the background, e.g. \(wrong.prefix(4))")
                // The table fills its place: every corner of it is the felt.
                let corners = [(table.x, table.y), (table.x + table.width - 1, table.y),
                               (table.x, table.y + table.height - 1), (table.x + table.width - 1, table.y + table.height - 1)]
                for (x, y) in corners {
                    let p = shot.rgb(x, y)
                    #expect(p.r == Int(Self.felt.r) && p.g == Int(Self.felt.g) && p.b == Int(Self.felt.b),
                            "\(moment): the table's corner (\(x), \(y)) is \(p)")
                }
            }
            frame()
            try check("first frame")
            graphics.present()
            frame()
            try check("after a frame")
            for (width, height) in [(1280, 720), (700, 500), (800, 600), (1024, 900)] {
                SDL_SetWindowSize(graphics.window, Int32(width), Int32(height))
                SDL_PumpEvents()  // SDL's renderer sees the new size (its own event watch)
                graphics.windowSizeChanged()
                frame()
                try check("resized to \(width)x\(height)")
                graphics.present()
                frame()
                try check("a frame later at \(width)x\(height)")
            }
        }
    }
}

/// The table's pixels as the renderer holds them (the viewport, from its corner), read
/// directly: the same before and after `Graphics.screenshot` learnt to read the letterbox.
private struct TablePixels {
    let scale: Double
    private let pixels: [UInt32]
    private let stride: Int

    init(_ graphics: Graphics) throws {
        var w: Int32 = 0, h: Int32 = 0
        SDL_GetRendererOutputSize(graphics.renderer, &w, &h)
        var scaleX: Float = 1, scaleY: Float = 1
        SDL_RenderGetScale(graphics.renderer, &scaleX, &scaleY)
        scale = Double(scaleX)
        stride = Int(w)
        var buffer = [UInt32](repeating: 0, count: Int(w) * Int(h))
        let status = buffer.withUnsafeMutableBytes { raw in
            SDL_RenderReadPixels(graphics.renderer, nil, SDL_PIXELFORMAT_ARGB8888.rawValue, raw.baseAddress, w * 4)
        }
        struct Unreadable: Error {}
        guard status == 0 else { throw Unreadable() }
        pixels = buffer
    }

    func rgb(_ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int) {
        let p = pixels[y * stride + x]
        return (Int(p >> 16 & 0xFF), Int(p >> 8 & 0xFF), Int(p & 0xFF))
    }
}
#endif
