#if GUI
import SnapTable
import CSDL2
import Glibc

/// An SDL call that failed, with SDL's own explanation (`SDL_GetError()`).
public struct SDLError: Error, CustomStringConvertible {
    public let call: String
    public let message: String

    public init(_ call: String) {
        self.call = call
        message = String(cString: SDL_GetError())
    }

    public init(_ call: String, message: String) {
        self.call = call
        self.message = message
    }

    public var description: String { "\(call) failed: \(message)" }
}

/// Turns SDL's "negative means failure" return codes into thrown errors.
@discardableResult
func sdlCheck(_ result: Int32, _ call: @autoclosure () -> String) throws(SDLError) -> Int32 {
    if result < 0 { throw SDLError(call()) }
    return result
}

/// The SDL libraries this process runs with, e.g. "SDL 2.26.5, image 2.6.3, mixer 2.6.2, ttf 2.20.1".
public enum SDLVersions {
    public static var linked: String {
        var sdl = SDL_version()
        SDL_GetVersion(&sdl)
        func text(_ version: UnsafePointer<SDL_version>?) -> String {
            guard let version = version?.pointee else { return "?" }
            return "\(version.major).\(version.minor).\(version.patch)"
        }
        return "SDL \(sdl.major).\(sdl.minor).\(sdl.patch), image \(text(IMG_Linked_Version())), "
            + "mixer \(text(Mix_Linked_Version())), ttf \(text(TTF_Linked_Version()))"
    }
}
#endif
