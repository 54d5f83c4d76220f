#if GUI
import CSDL2
import Foundation

/// A PNG read back through SDL_image, for structural checks on what a window showed.
struct Screenshot {
    let width: Int
    let height: Int
    private let pixels: [UInt32]  // ARGB

    init(path: String) throws {
        struct Unreadable: Error { let path: String }
        guard let loaded = IMG_Load(path),
              let surface = SDL_ConvertSurfaceFormat(loaded, SDL_PIXELFORMAT_ARGB8888.rawValue, 0) else {
            throw Unreadable(path: path)
        }
        SDL_FreeSurface(loaded)
        defer { SDL_FreeSurface(surface) }
        width = Int(surface.pointee.w)
        height = Int(surface.pointee.h)
        let pitch = Int(surface.pointee.pitch) / 4
        let base = surface.pointee.pixels.assumingMemoryBound(to: UInt32.self)
        var copy = [UInt32](repeating: 0, count: width * height)
        for y in 0..<height { for x in 0..<width { copy[y * width + x] = base[y * pitch + x] } }
        pixels = copy
    }

    func rgb(_ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int) {
        let p = pixels[y * width + x]
        return (Int(p >> 16 & 0xFF), Int(p >> 8 & 0xFF), Int(p & 0xFF))
    }

    /// The share of pixels in the region (fractions of the image) that pass `test`.
    func share(x: ClosedRange<Double> = 0...1, y: ClosedRange<Double> = 0...1,
               where test: (Int, Int, Int) -> Bool) -> Double {
        let xs = Int(x.lowerBound * Double(width))..<Int(x.upperBound * Double(width))
        let ys = Int(y.lowerBound * Double(height))..<Int(y.upperBound * Double(height))
        var hits = 0, total = 0
        for py in stride(from: ys.lowerBound, to: ys.upperBound, by: 2) {
            for px in stride(from: xs.lowerBound, to: xs.upperBound, by: 2) {
                let c = rgb(px, py)
                if test(c.r, c.g, c.b) { hits += 1 }
                total += 1
            }
        }
        return total == 0 ? 0 : Double(hits) / Double(total)
    }

    /// How many distinct colours (coarsely binned) appear: a blank or broken frame has few.
    var colourVariety: Int {
        var bins = Set<UInt32>()
        for p in stride(from: 0, to: pixels.count, by: 7) { bins.insert(pixels[p] & 0xF0F0F0) }
        return bins.count
    }
}

/// Felt green: green clearly above red and blue.
func isFelt(_ r: Int, _ g: Int, _ b: Int) -> Bool { g > 60 && g > r + 25 && g > b + 10 }
/// Card-face white.
func isCardWhite(_ r: Int, _ g: Int, _ b: Int) -> Bool { r > 235 && g > 235 && b > 235 }
/// The dialog box's cream.
func isDialogCream(_ r: Int, _ g: Int, _ b: Int) -> Bool { r > 240 && g > 236 && b > 220 && b < 245 && r > b + 6 }
/// The card back's navy.
func isCardBack(_ r: Int, _ g: Int, _ b: Int) -> Bool { b > 70 && b > r + 30 && b > g + 20 }
#endif
