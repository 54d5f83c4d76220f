import Foundation
import Testing
import SnapTestSupport

/// `snap-bench relay` and the relay rows of `snap-bench attack`, as processes: every line
/// there with numbers that parse and make sense (never how fast: speed is measured, not asserted).
@Suite("snap-bench relay, as a process", .blocksThreads)
struct RelayBenchTests {
    @Test("--quick prints every figure's line with parseable numbers, every room asked held", .timeLimit(.minutes(10)))  // a hang's bound: a loaded full run is slow
    func quickFigures() throws {
        let run = try runSnapBench(["relay", "--quick", "--rooms", "6"])
        #expect(run.status == 0, "\(run.error)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("snap bench relay: 200 samples, 20 joins, 6 rooms of 4 players") }, "\(run.output)")

        let verdict = try #require(lines.lazy.compactMap { $0.firstMatch(of:
            /^relay: snap → verdict at all clients p50 (\d+) µs, p99 (\d+) µs; direct TLS p50 (\d+) µs, p99 (\d+) µs; ratio p50 (\d+\.\d\d)x, p99 (\d+\.\d\d)x$/)
        }.first, "\(run.output)")
        let (relayedP50, relayedP99) = (Int(verdict.1)!, Int(verdict.2)!)
        let (directP50, directP99) = (Int(verdict.3)!, Int(verdict.4)!)
        #expect(relayedP50 > 0 && relayedP50 <= relayedP99 && directP50 > 0 && directP50 <= directP99)
        #expect(Double(verdict.5)! > 0)

        let join = try #require(lines.lazy.compactMap { $0.firstMatch(of:
            /^relay: invitation → welcome \(20 joins\) p50 (\d+) µs, p99 (\d+) µs; direct TLS connect → welcome p50 (\d+) µs, p99 (\d+) µs; ratio p50 (\d+\.\d\d)x$/)
        }.first, "\(run.output)")
        #expect(Int(join.1)! > 0 && Int(join.1)! <= Int(join.2)! && Int(join.3)! > 0 && Double(join.5)! > 0)
        // How many joins found the host's data connection waiting ahead is timing (the host's
        // dial against the next player's); that the line counts the joins is not.
        let ahead = try #require(lines.lazy.compactMap { $0.firstMatch(of:
            /^relay: joins spliced at once with the host's data connection waiting ahead: (\d+) of (\d+)$/)
        }.first, "\(run.output)")
        #expect(Int(ahead.2)! >= 20 && Int(ahead.1)! <= Int(ahead.2)!, "\(ahead.0)")
        // The same joins through a relay keeping none, back to back and 20 ms apart.
        let without = lines.compactMap { $0.firstMatch(of:
            /^relay: invitation → welcome(, joins 20 ms apart,)? without a connection ahead \(each player announced, the relay's first form\) p50 (\d+) µs, p99 (\d+) µs; ratio p50 (\d+\.\d\d)x; with it \/ without it p50 (\d+\.\d\d)x$/)
        }
        #expect(without.count == 2 && without.allSatisfy { Int($0.2)! > 0 && Int($0.2)! <= Int($0.3)! }, "\(run.output)")
        #expect(lines.contains { $0.hasPrefix("relay: invitation → welcome, joins 20 ms apart (20 joins) p50 ") }, "\(run.output)")
        // Each of the three through a bare copying hop too: the floor under any relay.
        let hops = lines.compactMap { $0.firstMatch(of:
            /^relay: (snap → verdict at all clients|connect → welcome \(20 joins\)|connect → welcome, joins 20 ms apart \(20 joins\)) through a bare copying hop \(one more process, no TLS of its own, no rooms: the floor under any relay\) p50 (\d+) µs, p99 (\d+) µs; ratio to direct TLS p50 (\d+\.\d\d)x; the relay against the hop p50 (\d+\.\d\d)x$/)
        }
        #expect(hops.map { String($0.1) } == ["snap → verdict at all clients", "connect → welcome (20 joins)",
                                              "connect → welcome, joins 20 ms apart (20 joins)"], "\(run.output)")
        #expect(hops.allSatisfy { Int($0.2)! > 0 && Int($0.2)! <= Int($0.3)! && Double($0.4)! > 0 && Double($0.5)! > 0 }, "\(run.output)")

        let rooms = try #require(lines.lazy.compactMap { $0.firstMatch(of:
            /^relay: rooms (\d+) of (\d+) held \((\d+) connections to the relay, set up in (\d+\.\d\d) s, open files allowed (\d+)\); relay CPU (\d+\.\d\d) % of one core over (\d+\.\d\d) s; RSS (\d+\.\d\d) MiB, (-?\d+\.\d\d) KiB a room above the idle relay's (\d+\.\d\d) MiB$/)
        }.first, "\(run.output)")
        #expect(Int(rooms.1)! == 6 && Int(rooms.2)! == 6, "every room asked is held: \(rooms.0)")
        #expect(Int(rooms.3)! == 6 * 10, "a room of four is ten connections, one waiting ahead: \(rooms.0)")
        #expect(Int(rooms.5)! >= 6 * 10)
        #expect(Double(rooms.6)! > 0, "the relay copied the rooms' bytes, so it used some CPU: \(rooms.0)")
        #expect(Double(rooms.7)! >= 2 && Double(rooms.8)! > 0 && Double(rooms.10)! > 0)
        #expect(lines.contains { $0.hasPrefix("relay: rooms' traffic is synthetic (the relay cannot tell): per player, host → player 64 bytes every 500 ms") })

        let copied = try #require(lines.lazy.compactMap { $0.firstMatch(of:
            /^relay: throughput (\d+\.\d\d) MB\/s per core through one spliced pair \((\d+\.\d\d) MB in (\d+\.\d\d) s, relay CPU (\d+\.\d\d) s, TLS in and out\); plain copy loop (\d+\.\d\d) MB\/s per core \((\d+\.\d\d) MB in (\d+\.\d\d) s, copy thread CPU (\d+\.\d\d) s\); ratio (\d+\.\d\d)x$/)
        }.first, "\(run.output)")
        #expect(Double(copied.1)! > 0 && Double(copied.2)! > 0, "bytes came through the relay: \(copied.0)")
        #expect(Double(copied.5)! > 0 && Double(copied.6)! > 0, "bytes came through the plain copy: \(copied.0)")
        #expect(Double(copied.9)! > 0)
    }

    @Test("bad options get a clear error", .timeLimit(.minutes(10)))  // a hang's bound, as above
    func badOptions() throws {
        let run = try runSnapBench(["relay", "--rooms", "0"])
        #expect(run.status != 0)
        #expect(run.error.contains("--rooms must be 1 to 100000"), "\(run.error)")
    }

    @Test("relay attack rows: a registration flood and a connection flood refused, the room in play goes on", .timeLimit(.minutes(10)))  // a hang's bound: a loaded full run is slow
    func attackRows() throws {
        let attacks = ["relay-quiet", "relay-register-flood", "relay-conn-flood"]
        let run = try runSnapBench(["attack", "--quick", "--seconds", "2", "--only", attacks.joined(separator: ",")])
        #expect(run.status == 0, "\(run.error)")
        let rows = run.output.split(separator: "\n").map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
        for attack in attacks {
            let row = try #require(rows.first { $0.first == attack }, "no row for \(attack) in:\n\(run.output)")
            #expect(row.count == 9, "\(row)")
            #expect(Int(row[1]) != nil && Int(row[2]) != nil, "\(attack): round trips timed: \(row)")
            #expect(Double(row[4]) != nil && Double(row[4])! > 0, "\(attack): the relay's peak RSS \(row)")
            #expect(Double(row[5]) != nil, "\(attack): the relay's CPU \(row)")
            #expect(row[7] == "yes", "\(attack): the room in play went on: \(row)")
            #expect(row[8].contains("round trips"), "\(row)")
        }
        // The flood comes from the address the room in play came from: the relay grants the
        // rest of that address's rooms (4 by default), and refuses every other.
        let register = try #require(rows.first { $0.first == "relay-register-flood" })
        let granted = try #require(register[8].firstMatch(of: /(\d+) rooms granted/), "\(register)")
        #expect(Int(granted.1)! == 3, "\(register)")
        #expect(register[8].contains("error too-many-rooms"), "\(register)")
        #expect(Double(register[6].split(separator: " ").first ?? "") != nil, "refused, so cut: \(register)")
        // 2000 idle connections at once from one address: the relay holds what reaches it
        // (64 from one address in the line phase; the kernel's listen queue may hand it fewer)
        // and closes them, at once past its cap or at its handshake deadline (10 s: the row
        // lasts 14 s at least).
        let flood = try #require(rows.first { $0.first == "relay-conn-flood" })
        let closed = try #require(flood[8].firstMatch(of: /(\d+) opened in [\d.]+ s: (\d+) held, (\d+) closed within 1 s, (\d+) later/), "\(flood)")
        #expect(Int(closed.1)! == 2000 && Int(closed.3)! + Int(closed.4)! > 0, "\(flood)")
        let files = try #require(flood[8].firstMatch(of: /the relay held at most (\d+) open files/), "\(flood)")
        #expect(Int(files.1)! > 0 && Int(files.1)! <= 1024 + 64, "\(flood)")
    }
}
