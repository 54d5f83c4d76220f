import Foundation
import Testing
import SnapTestSupport

@Suite("snap-bench attack, as a process", .blocksThreads)
struct AttackBenchTests {
    @Test("prints a row with parseable numbers per attack and exits 0", .timeLimit(.minutes(5)))
    func quickRows() throws {
        let attacks = ["quiet", "churn", "snap-flood"]
        let run = try runSnapBench(["attack", "--quick", "--seconds", "1.5", "--only", attacks.joined(separator: ",")])
        #expect(run.status == 0, "\(run.error)")
        let rows = run.output.split(separator: "\n").map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
        #expect(rows.contains { $0.first == "attack" && $0.count == 9 })
        for attack in attacks {
            let row = try #require(rows.first { $0.first == attack }, "no row for \(attack) in:\n\(run.output)")
            #expect(row.count == 9)
            for latency in row[1...2] { #expect(latency == "-" || Int(latency) != nil, "\(attack): \(latency)") }
            #expect(Double(row[4]) != nil && Double(row[4])! > 0, "\(attack): peak RSS \(row[4])")
            #expect(row[5] == "-" || Double(row[5]) != nil, "\(attack): CPU \(row[5])")
            #expect(["yes", "no"].contains(row[7]), "\(attack): \(row[7])")
        }
        let quiet = try #require(rows.first { $0.first == "quiet" })
        #expect(Int(quiet[1]) != nil && quiet[7] == "yes", "the quiet game must give verdicts: \(quiet)")
        // Today's host cuts a Snap! flood (more than 20 a second); the fixed one must too.
        let flood = try #require(rows.first { $0.first == "snap-flood" })
        #expect(Double(flood[6].split(separator: " ").first ?? "") != nil, "\(flood)")
    }

    @Test("over TCP the bench's host is open (no join code), so the honest game runs", .timeLimit(.minutes(5)))
    func tcpQuiet() throws {
        let run = try runSnapBench(["attack", "--quick", "--seconds", "1.5", "--only", "quiet", "--transport", "tcp"])
        #expect(run.status == 0, "\(run.error)")
        let rows = run.output.split(separator: "\n").map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
        let quiet = try #require(rows.first { $0.first == "quiet" }, "\(run.output)")
        #expect(Int(quiet[1]) != nil && quiet[7] == "yes", "the quiet game over TCP must give verdicts: \(quiet)")
    }

    @Test("stalled handshakes and a handshake flood on the TLS port: the game on the Unix socket goes on", .timeLimit(.minutes(5)))
    func tlsRows() throws {
        let run = try runSnapBench(["attack", "--quick", "--seconds", "2", "--only", "quiet,tls-stall,tls-handshakes"])
        #expect(run.status == 0, "\(run.error)")
        let rows = run.output.split(separator: "\n").map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
        for attack in ["tls-stall", "tls-handshakes"] {
            let row = try #require(rows.first { $0.first == attack }, "no row for \(attack) in:\n\(run.output)")
            #expect(row.count == 9 && row[7] == "yes", "\(attack): \(row)")
        }
        // The stalled connections are held within the cap and closed: most at once (over the
        // cap), the rest by the handshake deadline, none for ever.
        let stall = try #require(rows.first { $0.first == "tls-stall" })
        #expect(stall[8].contains("closed within 1 s"), "\(stall)")
        let flood = try #require(rows.first { $0.first == "tls-handshakes" })
        #expect(flood[8].contains("handshakes completed"), "\(flood)")
    }
}
