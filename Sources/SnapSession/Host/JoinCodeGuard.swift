import SnapBytes
import SnapProtocol

/// The join code a TCP connection's hello must carry (`JoinCode`), and the wrong ones
/// counted per address: past `wrongCodesAllowed` in a row, that address is refused unheard
/// for 1 s after the next, then 2 s, 4 s… up to `wrongCodeMaxPause`. Unix-socket
/// connections (no address) never need the code: file permissions guard them. The address
/// is the connection's `remote`: a TCP peer's IP address, or for a player through a relay
/// (whose connections all come from the relay) `relay peer TAG`, the relay's tag of the
/// player's own address (docs/RELAY.md §3), so that one guesser is locked out alone.
struct JoinCodeGuard: Sendable {
    /// Wrong join codes from one address, and until when it is refused without a look.
    struct WrongCodes: Sendable {
        var count = 0
        var refusedUntil: Duration = .zero
    }

    enum Verdict: Equatable, Sendable {
        case accepted
        /// `announce`: a line for the host's output (a wrong code, not a refusal unheard).
        case refused(String, announce: String?)
    }

    /// The code, or nil for an open game.
    let code: String?
    private let allowed: Int
    private let maxPause: Duration
    /// Per remote address (TCP only).
    private(set) var wrongCodes: [String: WrongCodes] = [:]

    init(_ configuration: HostConfiguration) {
        code = configuration.joinCode
        allowed = configuration.wrongCodesAllowed
        maxPause = configuration.wrongCodeMaxPause
    }

    /// The words to an address refused unheard after too many wrong codes (PROTOCOL.md §10 quotes them).
    static func refusedUnheardText(_ address: String, seconds: Int) -> String {
        "too many wrong join codes from \(address): try again in \(seconds) s"
    }

    /// Whether a connection from this address (nil: not TCP) must give the code.
    func isAsked(of address: String?) -> Bool { code != nil && address != nil }

    /// Checks the code a hello gave; counts a wrong one against its address.
    mutating func check(_ given: String, from address: String?, now: Duration) -> Verdict {
        guard let code, let address else { return .accepted }
        var record = wrongCodes[address] ?? WrongCodes()
        if now < record.refusedUntil {
            let wait = Int(((record.refusedUntil - now) / .seconds(1)).rounded(.up))
            return .refused(Self.refusedUnheardText(address, seconds: wait), announce: nil)
        }
        if JoinCode.normalized(given) == code {
            wrongCodes[address] = nil
            return .accepted
        }
        record.count += 1
        if record.count >= allowed {
            let doublings = min(record.count - allowed, 16)
            record.refusedUntil = now + min(.seconds(1) * (1 << doublings), maxPause)
        }
        if wrongCodes.count >= 1024 { wrongCodes = wrongCodes.filter { now < $0.value.refusedUntil } }
        wrongCodes[address] = record
        return .refused(given.isEmpty ? "this game needs its join code: ask the host for it (snapcards join --code XXXXXX)"
                            : "wrong join code: ask the host for the 6-character join code shown in its lobby",
                        announce: "wrong join code from \(address) (\(record.count) in a row)")
    }
}
