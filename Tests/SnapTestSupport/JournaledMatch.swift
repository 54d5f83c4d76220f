import SnapProtocol
import SnapSession

/// A match between the host's computer players in virtual time: the records a journal holds.
public func journaledMatch(rounds: Int, seed: UInt64, players: Int = 3) -> [MatchRecord] {
    var configuration = HostConfiguration(hostName: "Replay")
    configuration.bots = players
    configuration.seed = seed
    configuration.nonceSeed = seed
    // The same seed deals the same match (not secret: a test's journal).
    configuration.secretDeals = false
    configuration.rounds = rounds
    configuration.autoNextRound = .seconds(2)
    configuration.turnTimeout = nil
    var host = HostSession(configuration)
    var records: [MatchRecord] = []
    var now = Duration.zero
    var actions = host.handle(.start, now: now)
    while true {
        for case .record(let record) in actions { records.append(record) }
        guard host.phase != .over, let next = host.nextDeadline else { break }
        now = max(now, next)
        actions = host.handle(.tick, now: now)
    }
    return records
}
