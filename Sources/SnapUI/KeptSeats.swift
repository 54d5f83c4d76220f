#if GUI
import Glibc
import NIOConcurrencyHelpers
import SnapNet
import SnapPlatform
import SnapProtocol
import SnapScreens

/// Asks the host who is away; the answer arrives on the network loop, and the scene
/// takes it in `update`. Nil until then.
final class SeatLookup: Sendable {
    private let answer = WindowInbox<KeptSeatOffer>()

    var offer: KeptSeatOffer? { answer.first }

    /// With no seat kept for this game, the answer is Watch at once, and the host is not asked.
    /// A host that cannot be asked gets no seat taken from it: Watch.
    init(_ endpoint: Endpoint, name: String, joinCode: String, trust: ServerTrust? = nil, directories: UserDirectories) {
        let kept = directories.seatTokens.keptNames(for: endpoint)
        guard !kept.isEmpty else {
            answer.post(.watch)
            return
        }
        seatsAtTable(endpoint, name: name, joinCode: joinCode, loop: GameStarter.loops.next(), trust: trust)
            .whenComplete { [answer] seats in
                let table = ((try? seats.get()) ?? []).map { KeptSeatOffer.Seat(name: $0.name, away: $0.away) }
                answer.post(KeptSeatOffer(kept: kept, table: table))
            }
    }
}
#endif
