#if GUI
import Foundation
import SnapEngine
import SnapNet
import SnapProtocol
import SnapTable
@testable import SnapUI
import SnapTestSupport
import Testing

/// `snap play` as a stranger plays it: a real X server, windows found by name, real
/// mouse clicks from xdotool. What the clicks did is read back from the host's match
/// journal, the log every other view of the match comes from.
@Suite("Played with clicks on a real X server", .serialized)
struct XPlayTests {
    @Test("snap play 2 under Xvfb: xdotool clicks Start, turns cards on both tables, and a Snap! is judged",
          .enabled(if: WindowTests.haveTools(["xvfb-run", "xdotool"])), .timeLimit(.minutes(5)))
    func clicksPlay() throws {
        let binary = snapBinary()
        let base = scratchPath("snap-ui-xplay")
        try? FileManager.default.removeItem(atPath: base)
        try FileManager.default.createDirectory(atPath: base + "/run", withIntermediateDirectories: true)
        // Logical points (the 1024×768 table) the script clicks, from the layout the game draws with.
        let start = HostLobbyScene.startButtonCenter
        let pile = TableLayout.closedHitRect(.bottom).center
        let snap = TableLayout.snapButtonFrame.center
        func xy(_ point: Point) -> String { "\(Int(point.x)) \(Int(point.y))" }
        // `click WINDOW X Y`: a logical point → the window's pixels (the table is scaled to
        // fit and centred), then a real pointer move and button press.
        let script = """
            export LC_ALL=C
            click() {
              eval $(xdotool getwindowgeometry --shell $1)
              set -- $1 $(awk -v w=$WIDTH -v h=$HEIGHT -v x=$2 -v y=$3 'BEGIN {
                s = w / 1024; if (h / 768 < s) s = h / 768
                printf "%d %d", (w - 1024 * s) / 2 + x * s, (h - 768 * s) / 2 + y * s }')
              xdotool mousemove --window $1 $2 $3 click 1
            }
            # The limit only guards against a hang: the script ends the game when it is done.
            "\(binary)" play --clients 1 --name Ann --mute --quit-after 150 >/dev/null 2>&1 &
            play=$!
            host=$(xdotool search --sync --name 'Ann \\(host\\)' | head -1)
            client=$(xdotool search --sync --name '^Snap! - Player 2' | head -1)
            echo "found host=$host client=$client"
            # Start, again while the client may still be joining on a busy machine (Start
            # waits for a second player); once the table is up, that spot is empty felt.
            for i in 1 2 3; do sleep 2; click $host \(xy(start)); done
            # The deal, then each window clicks its own pile in turn: a click out of turn does nothing.
            sleep 6
            for i in $(seq 1 14); do
              click $host \(xy(pile)); sleep 0.6
              click $client \(xy(pile)); sleep 0.6
            done
            click $host \(xy(snap)); sleep 1.5
            click $client \(xy(snap)); sleep 1.5
            echo "clicked"
            # Closing the host's window (SDL turns SIGTERM into a quit) ends the match.
            kill -TERM $play
            wait
            """
        let output = try runUnderX(script, environment: ["SNAP_LAN": "off", "XDG_RUNTIME_DIR": base + "/run",
                                                          "XDG_CONFIG_HOME": base + "/config", "XDG_STATE_HOME": base + "/state"])
        #expect(output.contains("found host=") && output.contains("clicked"), "\(output)")

        // The host's journal: the match the clicks played.
        let directory = base + "/state/snap/matches"
        let path = try #require(MatchJournal.files(in: directory).last, "no journal in \(directory): \(output)")
        let records = try MatchJournal.read(path: path).records
        guard case .started(let match)? = records.first?.entry else {
            Issue.record("the journal does not start with the match: \(records.prefix(1))")
            return
        }
        let seats = Dictionary(uniqueKeysWithValues: match.players.map { ($0.name, $0.seat) })
        let ann = try #require(seats["Ann"]), other = try #require(seats["Player 2"])
        var turnedBy: Set<Seat> = []
        var snapsBy: [Seat: [Event]] = [:]
        for record in records {
            guard case .applied(let command, let events) = record.entry else { continue }
            switch command {
            case .turn(let seat) where events.contains(where: { if case .turned = $0 { true } else { false } }):
                turnedBy.insert(seat)
            case .snap(let seat):
                snapsBy[seat, default: []] += events
            default:
                break
            }
        }
        // Clicks on each window's own pile turned that player's cards.
        #expect(turnedBy == [ann, other], "turned by \(turnedBy): \(output)")
        // Each Snap! click reached the host and was judged: right, wrong or too late.
        for seat in [ann, other] {
            let verdicts = (snapsBy[seat] ?? []).filter { event in
                switch event {
                case .snapCorrect, .snapWrong, .snapTooLate: true
                default: false
                }
            }
            #expect(!verdicts.isEmpty, "\(seat)'s Snap! was not judged: \(snapsBy)")
        }
        try? FileManager.default.removeItem(atPath: base)
    }
}
#endif
