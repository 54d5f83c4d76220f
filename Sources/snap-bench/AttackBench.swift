import ArgumentParser
import Dispatch
import Foundation
import SnapBench

struct AttackBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attack",
        abstract: "Attacks on a host process, each beside a quiet run: honest Snap! latency, host memory and CPU, when the attacker is cut.",
        discussion: """
            Each attack runs against a fresh host process (`snap-bench host`: the HostServer of \
            `snapcards host --headless`, with the table held still; a private XDG_RUNTIME_DIR under /tmp) with two honest players timing Snap! → verdict. Traffic \
            goes only to that host; every attack stops by itself after --seconds. One table row \
            an attack: honest verdict p50/p99 (µs), p99 against the quiet run, the host's peak \
            RSS (VmHWM) and CPU (% of one core), when the host cut the attacker, and whether \
            the honest game went on. The relay-… rows attack a fresh `snapcards relay serve` \
            process instead (the one beside snap-bench) holding a room in play, one spliced \
            pair whose 64-byte round trips are timed: the columns are then the round trip, the \
            relay's RSS and CPU, and when the relay first refused the attacker.
            """)

    @Flag(help: "A short run (2 s an attack) for a smoke test.") var quick = false
    @Option(help: "unix or tcp (127.0.0.1).") var transport = "unix"
    @Option(help: "Seconds each attack (and each timing window) lasts.") var seconds: Double?
    @Option(help: "Only these attacks, comma separated (quiet always runs first when listed).") var only: String?

    func validate() throws {
        guard transport == "unix" || transport == "tcp" else { throw ValidationError("--transport must be unix or tcp") }
        if let seconds { guard seconds > 0, seconds <= 120 else { throw ValidationError("--seconds must be 0 to 120") } }
        _ = try attacks()
    }

    func attacks() throws -> [AttackBenchmark.Attack] {
        guard let only else { return AttackBenchmark.Attack.allCases }
        let names = only.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let chosen = try names.map { name in
            guard let attack = AttackBenchmark.Attack(rawValue: name) else {
                throw ValidationError("--only: no attack \(name); the attacks: "
                    + AttackBenchmark.Attack.allCases.map(\.rawValue).joined(separator: ", "))
            }
            return attack
        }
        return AttackBenchmark.Attack.allCases.filter(chosen.contains)
    }

    func run() throws {
        #if DEBUG
        say("warning: a debug build; measure with `swift build -c release`")
        #endif
        signal(SIGPIPE, SIG_IGN)  // a host that hangs up is measured, not fatal
        // Interrupted: no host process outlives the bench.
        let stops = ([SIGINT, SIGTERM] as [Int32]).map { signalNumber in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                HostProcess.killAll()
                Foundation.exit(128 + signalNumber)
            }
            source.resume()
            return source
        }
        defer { stops.forEach { $0.cancel() } }
        // The hosts are this executable's `host` command.
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let seconds = self.seconds ?? (quick ? 2 : 10)
        var benchmark = AttackBenchmark(executable: executable, transport: transport == "tcp" ? .tcp : .unix, seconds: seconds)
        if quick { benchmark.floodLimit = 200_000 }
        say("snap bench attack: \(transport), \(twoDecimals(seconds)) s an attack, floods of at most \(benchmark.floodLimit) messages, a fresh host process each"
            + ", host run with --turn-timeout 2")
        let header = ["attack", "p50 µs", "p99 µs", "p99/quiet", "peak RSS MB", "host CPU %", "attacker cut after",
                      "game went on", "note"]
        say(Self.line(header))
        var quietP99: Double?, relayQuietP99: Double?
        for attack in try attacks() {
            let row = benchmark.run(attack)
            if attack == .quiet { quietP99 = row.p99 }
            if attack == .relayQuiet { relayQuietP99 = row.p99 }
            // A relay's rows against the quiet relay: their latency is a round trip through it.
            say(Self.line(cells(row, quietP99: attack.onRelay ? relayQuietP99 : quietP99, seconds: seconds)))
        }
    }

    static let widths = [12, 8, 8, 9, 11, 10, 27, 12, 0]

    static func line(_ cells: [String]) -> String {
        zip(cells, widths).map { cell, width in cell.padding(toLength: max(width, cell.count), withPad: " ", startingAt: 0) }
            .joined(separator: " | ")
    }

    private func cells(_ row: AttackBenchmark.Row, quietP99: Double?, seconds: Double) -> [String] {
        let micros = { (value: Double?) in value.map { "\(Int($0.rounded()))" } ?? "-" }
        let ratio = zip2(row.p99, quietP99).map { twoDecimals($0 / $1) + "x" } ?? "-"
        let cut: String
        switch row.attack {
        case .quiet, .churn, .relayQuiet: cut = "-"
        default:
            let bound = switch row.attack {
            case .absent: max(seconds, AttackBenchmark.absentSeconds)
            case .relayConnectionFlood: max(seconds, AttackBenchmark.relayConnectionFloodSeconds)
            default: seconds
            }
            cut = row.cutAfter.map { threeDecimals($0) + " s" + (row.cutReason.map { " (\($0))" } ?? "") } ?? "not cut in \(twoDecimals(bound)) s"
        }
        let timed = row.attack.onRelay ? "round trips" : "verdicts"
        var notes = ["\(row.latencies.count) \(timed)" + (row.missed > 0 ? ", \(row.missed) missed" : "")]
        if let ended = row.hostEnded { notes.append((ended.hasPrefix("signal") ? "host crashed: " : "host ended: ") + ended) }
        if !row.note.isEmpty { notes.append(row.note) }
        return [row.attack.rawValue, micros(row.p50), micros(row.p99), ratio, twoDecimals(row.peakRSSMiB),
                row.cpuPercent.map(twoDecimals) ?? "-", cut, row.gameWentOn ? "yes" : "no", notes.joined(separator: "; ")]
    }

    private func zip2(_ a: Double?, _ b: Double?) -> (Double, Double)? {
        guard let a, let b, b > 0 else { return nil }
        return (a, b)
    }
}

func threeDecimals(_ value: Double) -> String {
    let thousandths = Int((value * 1000).rounded())
    let fraction = String(thousandths % 1000)
    return "\(thousandths / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
}
