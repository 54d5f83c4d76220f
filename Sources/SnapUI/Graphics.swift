#if GUI
import SnapTable
import CSDL2
import Glibc

/// A GPU (or software) texture SDL owns; destroyed with this object.
public final class Texture {
    package let pointer: OpaquePointer
    public let pixelWidth: Int
    public let pixelHeight: Int

    init(_ pointer: OpaquePointer) {
        self.pointer = pointer
        var w: Int32 = 0, h: Int32 = 0
        SDL_QueryTexture(pointer, nil, nil, &w, &h)
        pixelWidth = Int(w)
        pixelHeight = Int(h)
    }

    deinit { SDL_DestroyTexture(pointer) }
}

/// Which SDL renderer a window draws with.
public enum RendererChoice: String, Sendable, CaseIterable {
    /// The accelerated renderer on a machine with a GPU, else software (`SNAP_RENDERER`
    /// may say `accelerated` or `software` instead).
    case automatic
    case accelerated
    case software

    /// Whether to ask SDL for an accelerated renderer first. Without a GPU, SDL's
    /// "accelerated" renderer is OpenGL on Mesa's software rasteriser: it loads LLVM
    /// (about 90 MB more resident, 100 ms more to the first frame) to draw no faster.
    func wantsAccelerated(
        override: String? = getenv("SNAP_RENDERER").map { String(cString: $0) }, machineHasGPU: Bool = Self.machineHasGPU
    ) -> Bool {
        switch self {
        case .accelerated: true
        case .software: false
        case .automatic:
            switch override {
            case "accelerated": true
            case "software": false
            default: machineHasGPU
            }
        }
    }

    /// A GPU's device node: a DRM render node or card (Mesa, AMD, Intel, nouveau) or NVIDIA's.
    static var machineHasGPU: Bool {
        if access("/dev/nvidia0", F_OK) == 0 { return true }
        guard let directory = opendir("/dev/dri") else { return false }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("renderD") || name.hasPrefix("card") { return true }
        }
        return false
    }
}

/// The window and its renderer. Everything is drawn in logical 1024×768 coordinates;
/// SDL scales and letterboxes to the real window size.
public final class Graphics {
    let window: OpaquePointer
    package let renderer: OpaquePointer
    private var textCache: [TextKey: Texture] = [:]
    private let fonts: Fonts

    struct TextKey: Hashable { var text: String; var size: Int; var bold: Bool; var color: Color }

    /// SDL's name for the renderer in use ("software", "opengl", "opengles2", …).
    public let rendererName: String
    /// Seconds between frames while something moves, for a renderer whose present does not
    /// wait for the display's refresh (the software renderer): one refresh (60 Hz when the
    /// display does not say). Nil when presenting waits for vertical sync.
    public let pacedFrameInterval: Double?

    public init(title: String, hidden: Bool = false, position: (x: Int, y: Int)? = nil,
                size: (width: Int, height: Int)? = nil, renderer choice: RendererChoice = .automatic,
                fonts: Fonts) throws(SDLError) {
        var flags = SDL_WINDOW_RESIZABLE.rawValue | SDL_WINDOW_ALLOW_HIGHDPI.rawValue
        if hidden { flags |= SDL_WINDOW_HIDDEN.rawValue }
        let centered = Int32(bitPattern: 0x2FFF_0000)  // SDL_WINDOWPOS_CENTERED
        let x = position.map { Int32($0.x) } ?? centered, y = position.map { Int32($0.y) } ?? centered
        let width = Int32(size?.width ?? Int(logicalSize.width)), height = Int32(size?.height ?? Int(logicalSize.height))
        guard let window = SDL_CreateWindow(title, x, y, width, height, flags) else {
            throw SDLError("SDL_CreateWindow")
        }
        self.window = window
        // Linear filtering: cards are drawn from 2× textures at 1× and in between.
        SDL_SetHint(SDL_HINT_RENDER_SCALE_QUALITY, "1")
        // The software renderer presents through the window system (X11 shared memory),
        // never through an OpenGL context SDL would otherwise load just to show its pixels.
        SDL_SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0")
        let accelerated = choice.wantsAccelerated()
            ? SDL_CreateRenderer(window, -1, SDL_RENDERER_ACCELERATED.rawValue | SDL_RENDERER_PRESENTVSYNC.rawValue)
            : nil
        guard let renderer = accelerated ?? SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE.rawValue) else {
            SDL_DestroyWindow(window)
            throw SDLError("SDL_CreateRenderer")
        }
        self.renderer = renderer
        var info = SDL_RendererInfo()
        rendererName = SDL_GetRendererInfo(renderer, &info) == 0 && info.name != nil ? String(cString: info.name) : "unknown"
        // SDL 2.26's software renderer claims PRESENTVSYNC, yet presents at once (0.1–0.3 ms
        // a bare frame, offscreen and under Xvfb): only another renderer's claim is believed.
        if info.flags & SDL_RENDERER_PRESENTVSYNC.rawValue != 0, rendererName != "software" {
            pacedFrameInterval = nil
        } else {
            var mode = SDL_DisplayMode()
            let index = SDL_GetWindowDisplayIndex(window)
            let hertz = index >= 0 && SDL_GetCurrentDisplayMode(index, &mode) == 0 && mode.refresh_rate >= 30 ? mode.refresh_rate : 60
            pacedFrameInterval = 1 / Double(hertz)
        }
        self.fonts = fonts
        try sdlCheck(SDL_RenderSetLogicalSize(renderer, Int32(logicalSize.width), Int32(logicalSize.height)), "SDL_RenderSetLogicalSize")
        SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_BLEND)
        clear()  // the letterbox of the first frame (see `present`)
    }

    deinit {
        textCache = [:]
        SDL_DestroyRenderer(renderer)
        SDL_DestroyWindow(window)
    }

    public var title: String {
        get { String(cString: SDL_GetWindowTitle(window)) }
        set {
            SDL_SetWindowTitle(window, newValue)
            X11Window.setPlainName(window, newValue)
        }
    }

    /// Moves and resizes the window (screen pixels).
    public func place(x: Int, y: Int, width: Int, height: Int) {
        SDL_SetWindowSize(window, Int32(width), Int32(height))
        SDL_SetWindowPosition(window, Int32(x), Int32(y))
    }

    /// `count` window frames tiling the first display's usable area, 4:3 each: the first
    /// (the host's) at the left, the others beside and below it — one per quarter for
    /// three or four, halves for two.
    public static func tiles(count: Int) -> [(x: Int, y: Int, width: Int, height: Int)] {
        var bounds = SDL_Rect()
        if SDL_GetDisplayUsableBounds(0, &bounds) != 0 || bounds.w < 320 || bounds.h < 240 {
            bounds = SDL_Rect(x: 0, y: 0, w: 1920, h: 1080)
        }
        let columns = count <= 1 ? 1 : 2
        let rows = count <= 2 ? 1 : 2
        // Room for the title bar and border the window manager adds.
        let decoration = 32
        let cellWidth = Int(bounds.w) / columns, cellHeight = Int(bounds.h) / rows
        let width = min(1024, cellWidth - 8, (cellHeight - decoration) * 4 / 3)
        let height = width * 3 / 4
        return (0..<count).map { index in
            let column = index % columns, row = index / columns
            return (Int(bounds.x) + column * cellWidth + (cellWidth - width) / 2,
                    Int(bounds.y) + row * cellHeight + decoration, width, height)
        }
    }

    public var hasFocus: Bool { SDL_GetWindowFlags(window) & SDL_WINDOW_INPUT_FOCUS.rawValue != 0 }

    public func flash() { SDL_FlashWindow(window, SDL_FLASH_UNTIL_FOCUSED) }

    /// The windowed frame to go back to, while covering the screen without a window manager.
    private var coveredFrom: SDL_Rect?

    /// F11: full screen at the desktop's resolution (SDL_WINDOW_FULLSCREEN_DESKTOP, no mode
    /// change), and back. With no window manager to honour that request (a bare X server such
    /// as Xvfb), SDL would believe the window grew while it did not, and draw garbled: there
    /// the window is made borderless and moved over the whole display instead.
    public func toggleFullscreen() {
        if let frame = coveredFrom {
            coveredFrom = nil
            SDL_SetWindowBordered(window, SDL_TRUE)
            SDL_SetWindowSize(window, frame.w, frame.h)
            SDL_SetWindowPosition(window, frame.x, frame.y)
        } else if X11Window.isBareServer(window) {
            var frame = SDL_Rect()
            SDL_GetWindowPosition(window, &frame.x, &frame.y)
            SDL_GetWindowSize(window, &frame.w, &frame.h)
            var bounds = SDL_Rect()
            guard SDL_GetDisplayBounds(max(0, SDL_GetWindowDisplayIndex(window)), &bounds) == 0 else { return }
            coveredFrom = frame
            SDL_SetWindowBordered(window, SDL_FALSE)
            SDL_SetWindowPosition(window, bounds.x, bounds.y)
            SDL_SetWindowSize(window, bounds.w, bounds.h)
        } else {
            let isFull = SDL_GetWindowFlags(window) & SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue != 0
            SDL_SetWindowFullscreen(window, isFull ? 0 : SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue)
        }
        windowSizeChanged()
    }

    /// The window's size changed (full screen, a resize): recompute the letterbox scale and
    /// viewport for the new output size, so the 1024×768 table fills it again.
    public func windowSizeChanged() {
        SDL_RenderSetViewport(renderer, nil)
        SDL_RenderSetLogicalSize(renderer, Int32(logicalSize.width), Int32(logicalSize.height))
        clear()  // a resized window's new buffer: its letterbox holds nothing yet
    }

    public func setIcon(path: String) {
        guard let surface = IMG_Load(path) else { return }
        SDL_SetWindowIcon(window, surface)
        SDL_FreeSurface(surface)
    }

    /// Loads a PNG into a texture.
    public func loadTexture(_ path: String) throws(SDLError) -> Texture {
        guard let texture = IMG_LoadTexture(renderer, path) else { throw SDLError("IMG_LoadTexture(\(path))") }
        return Texture(texture)
    }

    // MARK: - Drawing

    /// The colour behind the table: what the letterbox shows around it in a window that is
    /// not 4:3 (a 1600×1000 window has bars 133 pixels wide either side).
    public static let background = Color(16, 70, 40)

    /// Fills the whole window, letterbox included (SDL clears past the viewport).
    public func clear(_ color: Color = background) {
        SDL_SetRenderDrawColor(renderer, color.r, color.g, color.b, color.a)
        SDL_RenderClear(renderer)
    }

    /// Shows the frame, then, in a window that is not 4:3, clears the buffer the next one is
    /// drawn into. Scenes draw only the 1024×768 table, and nothing else would ever fill the
    /// letterbox: SDL leaves a buffer's pixels undefined after a present (under Xvfb a new
    /// window's bars stayed black; another driver, a resize or full screen may leave anything
    /// there). A 4:3 window (1024×768 among them) is all table, drawn whole every frame.
    public func present() {
        SDL_RenderPresent(renderer)
        if hasLetterbox { clear() }
    }

    /// True when the table does not cover the window: its pixels are not exactly 4:3.
    private var hasLetterbox: Bool {
        var w: Int32 = 0, h: Int32 = 0
        guard SDL_GetRendererOutputSize(renderer, &w, &h) == 0 else { return true }
        return Double(w) * logicalSize.height != Double(h) * logicalSize.width
    }

    public func fill(_ rect: Rect, _ color: Color) {
        SDL_SetRenderDrawColor(renderer, color.r, color.g, color.b, color.a)
        var r = sdlRect(rect)
        SDL_RenderFillRect(renderer, &r)
    }

    public func outline(_ rect: Rect, _ color: Color, thickness: Int = 2) {
        SDL_SetRenderDrawColor(renderer, color.r, color.g, color.b, color.a)
        for i in 0..<thickness {
            var r = sdlRect(rect.insetBy(Double(i)))
            SDL_RenderDrawRect(renderer, &r)
        }
    }

    /// A filled rectangle with rounded corners, every pixel of it filled exactly once: a
    /// translucent colour is one even colour at any window size.
    ///
    /// Worked out in the window's pixels, not the table's points: drawn as one-point rows,
    /// each row was scaled on its own and SDL truncates each rectangle's position and size
    /// apart, so in a scaled window the rows of the corners left a pixel row out every few
    /// (light lines, at 1600×1000) or two fell on the same one (a darker, doubled line, at
    /// 700×500). At 1:1 (a 1024×768 window, a backdrop) the pixels are as they were.
    public func fillRoundedRect(_ rect: Rect, _ color: Color, radius: Double) {
        let r = Rect(x: rect.x.rounded(), y: rect.y.rounded(), width: rect.width.rounded(), height: rect.height.rounded())
        let radius = min(radius.rounded(), (r.height / 2).rounded(.down), (r.width / 2).rounded(.down))
        var scaleX: Float = 1, scaleY: Float = 1
        SDL_RenderGetScale(renderer, &scaleX, &scaleY)
        let sx = Double(scaleX), sy = Double(scaleY)
        // Edges in pixels (from the viewport's corner), each rounded once.
        let left = Int32((r.x * sx).rounded()), right = Int32(((r.x + r.width) * sx).rounded())
        let top = Int32((r.y * sy).rounded()), bottom = Int32(((r.y + r.height) * sy).rounded())
        let width = right - left, height = bottom - top
        guard width > 0, height > 0 else { return }
        // The corners' rows, in pixels; each row's inset from a circle through its middle.
        let rows = min(Int32((radius * sy).rounded()), height / 2, width / 2)
        let curve = Double(rows)
        func inset(_ row: Int32) -> Int32 {
            let dy = curve - Double(row) - 0.5
            return Int32(((curve - (curve * curve - dy * dy).squareRoot()) * (sx / sy)).rounded())
        }
        var rects: [SDL_Rect] = []
        if height > 2 * rows { rects.append(SDL_Rect(x: left, y: top + rows, w: width, h: height - 2 * rows)) }
        var row: Int32 = 0
        while row < rows {  // rows with the same inset as one rectangle, at the top and the bottom
            let edge = inset(row)
            var end = row + 1
            while end < rows, inset(end) == edge { end += 1 }
            if width > 2 * edge {
                rects.append(SDL_Rect(x: left + edge, y: top + row, w: width - 2 * edge, h: end - row))
                rects.append(SDL_Rect(x: left + edge, y: bottom - end, w: width - 2 * edge, h: end - row))
            }
            row = end
        }
        // Drawn at scale 1 in whole pixels, so SDL rounds nothing.
        SDL_RenderSetScale(renderer, 1, 1)
        SDL_SetRenderDrawColor(renderer, color.r, color.g, color.b, color.a)
        SDL_RenderFillRects(renderer, rects, Int32(rects.count))
        SDL_RenderSetScale(renderer, scaleX, scaleY)
    }

    /// Draws `texture` stretched into `rect`, turned `degrees` about its centre.
    public func draw(_ texture: Texture, in rect: Rect, degrees: Double = 0, alpha: Double = 1, flipX: Bool = false) {
        let drawn = degrees == 0 && !flipX ? fitted(texture, to: Size(rect.width, rect.height)) : texture
        SDL_SetTextureAlphaMod(drawn.pointer, UInt8(max(0, min(255, alpha * 255))))
        var destination = SDL_FRect(x: Float(rect.x), y: Float(rect.y), w: Float(rect.width), h: Float(rect.height))
        if drawn !== texture {
            SDL_RenderCopyF(renderer, drawn.pointer, nil, &destination)
        } else {
            SDL_RenderCopyExF(renderer, texture.pointer, nil, &destination, degrees, nil,
                              flipX ? SDL_FLIP_HORIZONTAL : SDL_FLIP_NONE)
        }
    }

    /// Copies of textures already at the size they are drawn, in pixels, by texture and size
    /// (holding the source too, so that its identity is never another texture's).
    private var fittedCopies: [FittedKey: (source: Texture, copy: Texture)] = [:]
    private struct FittedKey: Hashable {
        let texture: ObjectIdentifier
        let width: Int
        let height: Int
    }

    /// The software renderer scales every copy whose size differs from its texture's, and
    /// scaling a blended card costs several times a plain copy: a card (drawn at half its
    /// PNG's size) is scaled once here, at the window's current scale, and copied as is
    /// after. Other renderers scale on the GPU for free: they get the texture itself.
    private func fitted(_ texture: Texture, to size: Size) -> Texture {
        guard rendererName == "software" else { return texture }
        var scaleX: Float = 1, scaleY: Float = 1
        SDL_RenderGetScale(renderer, &scaleX, &scaleY)
        let width = Int((size.width * Double(scaleX)).rounded()), height = Int((size.height * Double(scaleY)).rounded())
        // Only smaller: a copy scaled up would be no sharper, and a full-window one is a backdrop's job.
        guard width > 0, height > 0, width < texture.pixelWidth, height < texture.pixelHeight else { return texture }
        let key = FittedKey(texture: ObjectIdentifier(texture), width: width, height: height)
        if let cached = fittedCopies[key] { return cached.copy }
        if fittedCopies.count >= 512 { fittedCopies = [:] }  // windows resized many times: start again
        guard let pointer = SDL_CreateTexture(renderer, SDL_PIXELFORMAT_ARGB8888.rawValue,
                                              Int32(SDL_TEXTUREACCESS_TARGET.rawValue), Int32(width), Int32(height)) else { return texture }
        let copy = Texture(pointer)
        let previous = SDL_GetRenderTarget(renderer)
        guard SDL_SetRenderTarget(renderer, pointer) == 0 else { return texture }
        SDL_SetTextureBlendMode(pointer, SDL_BLENDMODE_NONE)
        SDL_SetRenderDrawColor(renderer, 0, 0, 0, 0)
        SDL_RenderClear(renderer)
        var mode = SDL_BLENDMODE_BLEND
        SDL_GetTextureBlendMode(texture.pointer, &mode)
        SDL_SetTextureBlendMode(texture.pointer, SDL_BLENDMODE_NONE)  // its pixels, alpha included, as they are
        SDL_SetTextureAlphaMod(texture.pointer, 255)
        var whole = SDL_Rect(x: 0, y: 0, w: Int32(width), h: Int32(height))
        SDL_RenderCopy(renderer, texture.pointer, nil, &whole)
        SDL_SetTextureBlendMode(texture.pointer, mode)
        SDL_SetRenderTarget(renderer, previous)
        SDL_SetTextureBlendMode(pointer, mode)
        fittedCopies[key] = (texture, copy)
        return copy
    }

    /// Tiles `texture` over the whole table at `tileSize`.
    public func tile(_ texture: Texture, tileSize: Size) {
        var y = 0.0
        while y < logicalSize.height {
            var x = 0.0
            while x < logicalSize.width {
                // One point of overlap: scaled to a window of another size, abutting tiles
                // round apart and leave a dark seam between them.
                draw(texture, in: Rect(x: x, y: y, width: tileSize.width + 1, height: tileSize.height + 1))
                x += tileSize.width
            }
            y += tileSize.height
        }
    }

    /// Full-table backdrops drawn once (`backdrop`), by name.
    private var backdrops: [String: Texture] = [:]

    /// Draws the backdrop `name` over the whole table: `draw` renders it once into a texture,
    /// then each frame copies that. The felt alone is twelve tiles, each stretched a point
    /// for overlap, and its shaded edges are some eighty blended bands: with the software
    /// renderer that was most of a table frame (about 5 of 7 ms), every frame.
    /// Without render targets it just draws.
    public func backdrop(_ name: String, draw: (Graphics) -> Void) {
        if backdrops[name] == nil, let made = renderBackdrop(draw) { backdrops[name] = made }
        guard let texture = backdrops[name] else { return draw(self) }
        var destination = SDL_FRect(x: 0, y: 0, w: Float(logicalSize.width), h: Float(logicalSize.height))
        SDL_RenderCopyF(renderer, texture.pointer, nil, &destination)
    }

    private func renderBackdrop(_ draw: (Graphics) -> Void) -> Texture? {
        guard let pointer = SDL_CreateTexture(renderer, SDL_PIXELFORMAT_ARGB8888.rawValue,
                                              Int32(SDL_TEXTUREACCESS_TARGET.rawValue),
                                              Int32(logicalSize.width), Int32(logicalSize.height)) else { return nil }
        let texture = Texture(pointer)
        // Opaque: copied, not blended, over whatever was there.
        SDL_SetTextureBlendMode(pointer, SDL_BLENDMODE_NONE)
        guard SDL_SetRenderTarget(renderer, pointer) == 0 else { return nil }
        SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255)
        SDL_RenderClear(renderer)
        draw(self)  // at 1:1: SDL sets a target texture's own viewport and scale
        SDL_SetRenderTarget(renderer, nil)
        return texture
    }

    /// Forgets the backdrops (the renderer lost its targets' pixels); the next frame redraws them.
    func dropBackdrops() {
        backdrops = [:]
        fittedCopies = [:]
    }

    /// Text rendered once per (text, size, weight, colour) and cached.
    public func textTexture(_ text: String, size: Int, bold: Bool = false, color: Color = .white) -> Texture? {
        guard !text.isEmpty else { return nil }
        let key = TextKey(text: text, size: size, bold: bold, color: color)
        if let cached = textCache[key] { return cached }
        guard let font = fonts.font(size: size, bold: bold),
              let surface = TTF_RenderUTF8_Blended(font, text, SDL_Color(r: color.r, g: color.g, b: color.b, a: color.a)) else {
            return nil
        }
        defer { SDL_FreeSurface(surface) }
        guard let texture = SDL_CreateTextureFromSurface(renderer, surface) else { return nil }
        if textCache.count > 512 { textCache.removeAll() }
        let result = Texture(texture)
        textCache[key] = result
        return result
    }

    /// `text` as it fits in `width` points at this size: whole, or cut and ending with
    /// `…` (measured with the font, nothing drawn). For text from outside, e.g. a name
    /// announced on the network.
    public func fitted(_ text: String, width: Double, size: Int, bold: Bool = false) -> String {
        guard let font = fonts.font(size: size, bold: bold) else { return text }
        func fits(_ candidate: String) -> Bool {
            var w: Int32 = 0, h: Int32 = 0
            return TTF_SizeUTF8(font, candidate, &w, &h) == 0 && Double(w) / 2 <= width
        }
        if fits(text) { return text }
        let characters = Array(text)
        var low = 0, high = characters.count  // the most characters that fit before "…"
        while low < high {
            let middle = (low + high + 1) / 2
            if fits(String(characters[..<middle]) + "…") { low = middle } else { high = middle - 1 }
        }
        return String(characters[..<low]) + "…"
    }

    /// How wide `text` is drawn at this size, in points (measured with the font, nothing drawn).
    public func textWidth(_ text: String, size: Int, bold: Bool = false) -> Double {
        guard let font = fonts.font(size: size, bold: bold) else { return 0 }
        var w: Int32 = 0, h: Int32 = 0
        return TTF_SizeUTF8(font, text, &w, &h) == 0 ? Double(w) / 2 : 0
    }

    public enum Alignment { case left, center, right }

    /// Draws text with its top at `origin.y`, aligned on `origin.x`; returns its size.
    @discardableResult
    public func text(_ text: String, at origin: Point, size: Int, bold: Bool = false, color: Color = .white,
                     align: Alignment = .center, shadow: Bool = true) -> Size {
        guard let texture = textTexture(text, size: size, bold: bold, color: color) else { return Size(0, 0) }
        // Fonts are rendered at 2× for crisp text when the window is scaled up.
        let w = Double(texture.pixelWidth) / 2, h = Double(texture.pixelHeight) / 2
        let x: Double
        switch align {
        case .left: x = origin.x
        case .center: x = origin.x - w / 2
        case .right: x = origin.x - w
        }
        if shadow, let dark = textTexture(text, size: size, bold: bold, color: Color(0, 0, 0, 160)) {
            draw(dark, in: Rect(x: x + 1.5, y: origin.y + 1.5, width: w, height: h))
        }
        draw(texture, in: Rect(x: x, y: origin.y, width: w, height: h))
        return Size(w, h)
    }

    /// The window's pixels, as a PNG.
    public func screenshot(to path: String) throws(SDLError) {
        var w: Int32 = 0, h: Int32 = 0
        try sdlCheck(SDL_GetRendererOutputSize(renderer, &w, &h), "SDL_GetRendererOutputSize")
        guard let surface = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888.rawValue) else {
            throw SDLError("SDL_CreateRGBSurfaceWithFormat")
        }
        defer { SDL_FreeSurface(surface) }
        // The whole window, letterbox included: SDL would read only the viewport (the table),
        // put at the image's left with the rest transparent (white in a viewer).
        SDL_RenderSetViewport(renderer, nil)
        defer { SDL_RenderSetLogicalSize(renderer, Int32(logicalSize.width), Int32(logicalSize.height)) }
        try sdlCheck(SDL_RenderReadPixels(renderer, nil, SDL_PIXELFORMAT_ARGB8888.rawValue, surface.pointee.pixels,
                                          surface.pointee.pitch), "SDL_RenderReadPixels")
        try sdlCheck(IMG_SavePNG(surface, path), "IMG_SavePNG(\(path))")
    }

    /// Window coordinates (mouse events) → logical table coordinates.
    private func sdlRect(_ rect: Rect) -> SDL_Rect {
        SDL_Rect(x: Int32(rect.x.rounded()), y: Int32(rect.y.rounded()), w: Int32(rect.width.rounded()), h: Int32(rect.height.rounded()))
    }
}

/// What SDL does not do for an X11 window, through the Xlib SDL loaded (`dlopen`, so
/// nothing more is linked). Every function here does nothing under another video driver.
enum X11Window {
    private typealias GetWMInfo = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32
    private typealias ChangeProperty = @convention(c) (UnsafeMutableRawPointer?, UInt, UInt, UInt, Int32, Int32,
                                                       UnsafePointer<UInt8>?, Int32) -> Int32
    private typealias Flush = @convention(c) (UnsafeMutableRawPointer?) -> Int32
    private typealias InternAtom = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int32) -> UInt
    private typealias DefaultRoot = @convention(c) (UnsafeMutableRawPointer?) -> UInt
    private typealias GetProperty = @convention(c) (UnsafeMutableRawPointer?, UInt, UInt, Int, Int, Int32, UInt,
                                                    UnsafeMutablePointer<UInt>?, UnsafeMutablePointer<Int32>?,
                                                    UnsafeMutablePointer<UInt>?, UnsafeMutablePointer<UInt>?,
                                                    UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32
    private typealias Free = @convention(c) (UnsafeMutableRawPointer?) -> Int32

    private static func symbol<T>(_ name: String, as type: T.Type) -> T? {
        guard let xlib = dlopen("libX11.so.6", RTLD_LAZY | RTLD_NOLOAD), let pointer = dlsym(xlib, name) else { return nil }
        return unsafeBitCast(pointer, to: type)
    }

    /// The X display and window of an SDL window, under the x11 driver.
    private static func handles(_ window: OpaquePointer) -> (display: UnsafeMutableRawPointer, window: UInt)? {
        guard let driver = SDL_GetCurrentVideoDriver(), String(cString: driver) == "x11",
              let getInfo = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "SDL_GetWindowWMInfo") else { return nil }
        // SDL_SysWMinfo: SDL_version at 0, the subsystem (an int) at 4, the union at 8;
        // for X11 the union holds `Display *display` then `Window window`.
        var info = [UInt8](repeating: 0, count: 128)
        var version = SDL_version()
        SDL_GetVersion(&version)
        info[0] = version.major; info[1] = version.minor; info[2] = version.patch
        let found: (UnsafeMutableRawPointer?, UInt) = info.withUnsafeMutableBytes { raw in
            guard unsafeBitCast(getInfo, to: GetWMInfo.self)(window, raw.baseAddress) == 1,
                  raw.load(fromByteOffset: 4, as: Int32.self) == 2 /* SDL_SYSWM_X11 */ else { return (nil, 0) }
            return (UnsafeMutableRawPointer(bitPattern: raw.load(fromByteOffset: 8, as: UInt.self)),
                    raw.load(fromByteOffset: 16, as: UInt.self))
        }
        guard let display = found.0, found.1 != 0 else { return nil }
        return (display, found.1)
    }

    /// SDL writes the title into both `_NET_WM_NAME` and `WM_NAME` as UTF8_STRING; tools
    /// that read `WM_NAME` in the C locale (`xdotool search --name`, old window managers)
    /// cannot convert that and see no name. This rewrites `WM_NAME` as a plain Latin-1
    /// STRING ("—" → "-", anything else outside Latin-1 → "?"); `_NET_WM_NAME` stays UTF-8.
    static func setPlainName(_ window: OpaquePointer, _ title: String) {
        guard let (display, xWindow) = handles(window), let change = symbol("XChangeProperty", as: ChangeProperty.self),
              let flush = symbol("XFlush", as: Flush.self) else { return }
        let plain: [UInt8] = title.unicodeScalars.map { scalar in
            switch scalar.value {
            case 0x2013, 0x2014: UInt8(ascii: "-")
            case 0x20...0x7E, 0xA0...0xFF: UInt8(scalar.value)
            default: UInt8(ascii: "?")
            }
        }
        let wmName: UInt = 39, string: UInt = 31  // XA_WM_NAME, XA_STRING
        _ = change(display, xWindow, wmName, string, 8, 0 /* PropModeReplace */, plain, Int32(plain.count))
        _ = flush(display)
    }

    /// True on an X server with no EWMH window manager (no `_NET_SUPPORTING_WM_CHECK` on
    /// the root window): nobody would act on a full-screen request.
    static func isBareServer(_ window: OpaquePointer) -> Bool {
        guard let (display, _) = handles(window), let intern = symbol("XInternAtom", as: InternAtom.self),
              let root = symbol("XDefaultRootWindow", as: DefaultRoot.self),
              let get = symbol("XGetWindowProperty", as: GetProperty.self), let free = symbol("XFree", as: Free.self)
        else { return false }
        let check = intern(display, "_NET_SUPPORTING_WM_CHECK", 0)
        var type: UInt = 0, format: Int32 = 0, items: UInt = 0, after: UInt = 0
        var data: UnsafeMutablePointer<UInt8>?
        let status = get(display, root(display), check, 0, 1, 0, 0 /* AnyPropertyType */, &type, &format, &items, &after,
                         &data)
        if let data { _ = free(data) }
        return status == 0 && (type == 0 || items == 0)
    }
}

/// DejaVu from Debian's fonts-dejavu-core, opened at 2× the asked size. Both files are read
/// once, when the window opens, and each size is opened from those bytes: a size first drawn
/// mid-game (a splash, a longer status line) reads no file on the window's thread.
public final class Fonts {
    private var cache: [Int: OpaquePointer] = [:]
    private let regular: UnsafeMutableRawBufferPointer
    private let bold: UnsafeMutableRawBufferPointer

    public static let searchDirectories = ["/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu", "/usr/local/share/fonts"]

    public init() throws(SDLError) {
        func find(_ file: String) -> String? {
            Self.searchDirectories.map { $0 + "/" + file }.first { access($0, R_OK) == 0 }
        }
        guard let regularPath = find("DejaVuSans.ttf"), let boldPath = find("DejaVuSans-Bold.ttf") else {
            throw SDLError("finding fonts", message: "DejaVu Sans is missing: install Debian's fonts-dejavu-core "
                + "(looked in \(Self.searchDirectories.joined(separator: ", ")))")
        }
        func read(_ path: String) throws(SDLError) -> UnsafeMutableRawBufferPointer {
            var count = 0
            guard let bytes = SDL_LoadFile(path, &count) else { throw SDLError("reading \(path)") }
            return UnsafeMutableRawBufferPointer(start: bytes, count: count)
        }
        regular = try read(regularPath)
        do { bold = try read(boldPath) } catch {
            SDL_free(regular.baseAddress)
            throw error
        }
    }

    func font(size: Int, bold isBold: Bool) -> OpaquePointer? {
        let key = size * 2 + (isBold ? 1 : 0)
        if let font = cache[key] { return font }
        let file = isBold ? bold : regular
        // freesrc 1: the font closes the stream; the bytes stay ours until deinit.
        guard let stream = SDL_RWFromConstMem(file.baseAddress, Int32(file.count)),
              let font = TTF_OpenFontRW(stream, 1, Int32(size * 2)) else { return nil }
        cache[key] = font
        return font
    }

    deinit {
        for font in cache.values { TTF_CloseFont(font) }
        SDL_free(regular.baseAddress)
        SDL_free(bold.baseAddress)
    }
}
#endif
