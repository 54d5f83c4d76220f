#if GUI
import Foundation
import SnapEngine
import SnapMatchFiles
import SnapNet
import SnapProtocol
import SnapTable
@testable import SnapUI
import SnapTestSupport
import Testing

/// `snapcards play` as a stranger plays it: a real X server, windows found by name, real
/// mouse clicks from xdotool. What the clicks did is read back from the host's match
/// journal, the log every other view of the match comes from.
@Suite("Played with clicks on a real X server", .blocksThreads, .serialized)
struct XPlayTests {
    @Test("snapcards play 2 under Xvfb: xdotool clicks Start, turns cards on both tables, and a Snap! is judged",
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
            host=$(timeout 60 xdotool search --sync --name 'Ann \\(host\\)' | head -1)
            client=$(timeout 60 xdotool search --sync --name '^Snap! - Player 2' | head -1)
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

    @Test("three client windows on one machine, the middle one killed: a window opened with no name takes that seat back, and no other window is cut",
          .enabled(if: WindowTests.haveTools(["xvfb-run", "xdotool"])), .timeLimit(.minutes(5)))
    func reopenedWindowTakesTheAwaySeat() throws {
        let binary = snapBinary()
        let base = scratchPath("snap-ui-xreclaim")
        try? FileManager.default.removeItem(atPath: base)
        try FileManager.default.createDirectory(atPath: base + "/run", withIntermediateDirectories: true)
        // The pointer is never moved: the windows are answered from the keyboard, as a player
        // who reopens a window and presses Enter would. The host says who left and who came
        // back (--verbose: every sign-in, a replaced connection's too).
        let script = """
            export LC_ALL=C
            wait_for() { for i in $(seq 1 300); do grep -q "$1" host.log && return 0; sleep 0.1; done; echo "never: $1"; return 1; }
            # The whole screen, for a person to look at (when xwd and netpbm are installed).
            shot() { command -v xwd >/dev/null && xwd -root -silent | xwdtopnm 2>/dev/null | pnmtopng >"$1" 2>/dev/null; }
            cd "\(base)"
            "\(binary)" host --headless --name Table --start-when 3 --grace 60 --speed 0.5 --verbose >host.log 2>&1 &
            host=$!
            wait_for "listening on unix:"
            socket=$(ls run/snap/*.sock | head -1)
            # One at a time, so that seats follow the order: Player 3 is the middle window.
            # Side by side along the top of the screen, the reopened window below them.
            for n in 2 3 4; do
              "\(binary)" join --socket "$socket" --name "Player $n" --mute --quit-after 120 \\
                --position $(( (n - 2) * 530 )),0 --size 520x390 >/dev/null 2>&1 &
              eval "p$n=$!"
              wait_for "Player $n joined"
            done
            wait_for "journal: "
            sleep 3
            kill -9 $p3
            wait_for "Player 3 away"
            # With no name: the saved one (none saved: the login name), which holds no seat here.
            "\(binary)" join --socket "$socket" --mute --quit-after 120 --position 530,440 --size 520x390 >/dev/null 2>&1 &
            again=$!
            window=$(timeout 60 xdotool search --sync --pid $again | head -1)
            sleep 3
            shot "\(screenshotPath("xreclaim-offer"))"
            xdotool key --window $window Return
            wait_for "Player 3 rejoined" && echo "taken back"
            sleep 2
            shot "\(screenshotPath("xreclaim-after"))"
            kill -0 $p2 && kill -0 $p4 && echo "others running"
            echo "--- host log"; cat host.log
            kill -TERM $again $p2 $p4 $host 2>/dev/null
            wait
            """
        let output = try runUnderX(script, environment: ["SNAP_LAN": "off", "XDG_RUNTIME_DIR": base + "/run",
                                                          "XDG_CONFIG_HOME": base + "/config", "XDG_STATE_HOME": base + "/state"])
        #expect(output.contains("taken back"), "\(output)")
        #expect(output.contains("others running"), "\(output)")
        let log = output.components(separatedBy: "--- host log").last ?? ""
        // A live window is never replaced, and never away: its connection was never cut.
        for other in ["Player 2", "Player 4"] {
            #expect(!log.contains("\(other) rejoined"), "\(other)'s seat was taken: \(log)")
            #expect(!log.contains("\(other) away"), "\(other)'s window was cut: \(log)")
        }
        // "seat N: Player 3 left" is the grace running out (a dropped connection is logged as "left (connection dropped)").
        #expect(!log.split(separator: "\n").contains { $0.contains("seat ") && $0.hasSuffix("Player 3 left") },
                "Player 3's seat was lost: \(log)")
        try? FileManager.default.removeItem(atPath: base)
    }
}
#endif
