#if GUI
import SnapTable
import CSDL2
import Glibc

/// The game's sounds. With no sound device (CI, a dummy driver that fails) the game
/// plays on silently; `played` counts what was really mixed, for tests.
public final class Audio {
    public typealias Sound = TableSound

    private var chunks: [Sound: UnsafeMutablePointer<Mix_Chunk>] = [:]
    private var dealChannel: Int32 = -1
    public private(set) var isAvailable = false
    public var isMuted = false {
        didSet { if isMuted { stopDealing() } }
    }
    public private(set) var played: [Sound: Int] = [:]

    public init(directory: String) {
        guard Mix_OpenAudio(44_100, UInt16(AUDIO_S16LSB), 2, 1_024) == 0 else { return }
        Mix_AllocateChannels(16)
        let files: [Sound: String] = [.deal: "deal.wav", .flick: "flick.wav", .correct: "correct.wav", .wrong: "wrong.wav",
                                      .win: "win.wav"]
        for (sound, file) in files {
            guard let rw = SDL_RWFromFile(directory + "/sounds/" + file, "rb"), let chunk = Mix_LoadWAV_RW(rw, 1) else { continue }
            chunks[sound] = chunk
        }
        isAvailable = !chunks.isEmpty
    }

    public func play(_ sound: Sound) {
        guard !isMuted, let chunk = chunks[sound] else { return }
        if Mix_PlayChannelTimed(-1, chunk, 0, -1) >= 0 { played[sound, default: 0] += 1 }
    }

    /// The dealing loop, until `stopDealing()`.
    public func startDealing() {
        guard !isMuted, dealChannel < 0, let chunk = chunks[.deal] else { return }
        dealChannel = Mix_PlayChannelTimed(-1, chunk, -1, -1)
        if dealChannel >= 0 { played[.deal, default: 0] += 1 }
    }

    public func stopDealing() {
        if dealChannel >= 0 { Mix_HaltChannel(dealChannel) }
        dealChannel = -1
    }

    public var isDealing: Bool { dealChannel >= 0 }

    deinit {
        Mix_HaltChannel(-1)
        for chunk in chunks.values { Mix_FreeChunk(chunk) }
        if isAvailable { Mix_CloseAudio() }
    }
}
#endif
