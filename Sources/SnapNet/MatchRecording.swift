import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SnapJournal
import SnapMatchFiles
import SnapProtocol

/// A host's match on disk: the journal it is written to as it grows (`MatchJournal`), and
/// the history it is part of (`MatchHistory`: the won counts of the matches before it, and
/// this match's rounds as they end). Nothing here touches the disk or the history on the
/// loop or on a caller's thread (a window's): the thread pool, the writer's queue and the
/// history's threads do it. Touched on `loop` only, but for `earlierWinsCounted`.
final class MatchRecording: @unchecked Sendable {  // loop-confined (see above); `winsCounted` is locked
    let loop: EventLoop
    let logger: Logger
    /// Past matches' won counts, and this match's rounds as they end (nil: none).
    private let history: (any MatchHistory)?
    /// Where the match log is written as it grows (nil: not at all).
    private var journal: JournalWriter?
    private let winsCounted = NIOLockedValueBox<EventLoopFuture<[String: Int]>?>(nil)  // set off the loop

    init(loop: EventLoop, logger: Logger, history: (any MatchHistory)?) {
        self.loop = loop
        self.logger = logger
        self.history = history
    }

    /// Reads a crashed host's journal for `--resume`: a torn tail is cut with a warning; a
    /// damaged journal is refused (`JournalDamaged`) unless `fromLastGoodRecord`, and then the
    /// whole damaged file is first kept beside it.
    static func readForResuming(_ path: String, fromLastGoodRecord: Bool,
                                onWarning: @escaping @Sendable (String) -> Void) throws -> MatchJournal.Contents {
        let journal = try MatchJournal.read(path: path)
        if let fault = journal.fault {
            if fault.isDamage {
                guard fromLastGoodRecord else { throw JournalDamaged(path: path, fault: fault) }
                let copy = try Journal.keepDamagedCopy(of: path)
                onWarning("the journal is \(fault); the whole file is kept as \(copy), and the match goes on from record \(fault.record - 1)")
            } else {
                onWarning("the journal's tail was cut: \(fault)")
            }
        }
        return journal
    }

    /// Goes on writing a resumed match's journal after its last intact record, and counts the
    /// wins of the matches beside it (`counted` gets them, on the loop).
    func `continue`(_ path: String, intactLength: Int, onWarning: @escaping @Sendable (String) -> Void,
                    counted: @escaping @Sendable ([String: Int]) -> Void) throws {
        journal = try JournalWriter(continuing: path, intactLength: intactLength, onError: onWarning)
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        countEarlierWins(in: directory.isEmpty ? "." : directory, excluding: path, counted: counted)
    }

    /// Journals the match in `directory`; the future has the file's path. The file is made on
    /// NIO's thread pool; then, on the loop in one step, whatever the match logged before
    /// (`log`: a game that started as soon as its local player sat down) is written, and
    /// everything after follows (`append`). A journal attached mid-match without its first
    /// records is damage, not a match. Then the earlier matches' wins are counted (`counted`).
    func start(in directory: String, hostName: String, onWarning: @escaping @Sendable (String) -> Void,
               log: @escaping @Sendable () -> [MatchRecord], counted: @escaping @Sendable ([String: Int]) -> Void) -> EventLoopFuture<String> {
        NIOThreadPool.singleton.runIfActive(eventLoop: loop) {
            try MatchJournal.create(in: directory, hostName: hostName, onError: onWarning)
        }.map { [self] writer in
            for record in log() { writer.append { MatchRecordCodec.encode(record, into: $0) } }
            journal = writer
            countEarlierWins(in: directory, excluding: writer.path, counted: counted)
            return writer.path
        }
    }

    /// The won counts the table shows come from the matches journaled before this one, as
    /// `history` has them (indexing any journal it lacks first). That is never done on the
    /// caller's thread (a window's) nor on the loop: the history's threads do it, and the loop takes the
    /// counts when they are ready. A game that starts before then shows this match's wins only.
    private func countEarlierWins(in directory: String, excluding path: String, counted: @escaping @Sendable ([String: Int]) -> Void) {
        guard let history else { return }
        let promise = loop.makePromise(of: [String: Int].self)
        history.roundsWon(in: directory, excluding: path) { promise.completeWith($0) }
        let future = promise.futureResult
        future.whenSuccess { [logger] wins in  // on the loop
            counted(wins)
            logger.info("earlier matches counted: \(wins.count) players have won rounds here before")
        }
        future.whenFailure { [logger] error in logger.warning("the won counts of earlier matches could not be read: \(error)") }
        winsCounted.withLockedValue { $0 = future }
    }

    /// The counts of the earlier matches once `counted` has had them (tests wait for it).
    var earlierWinsCounted: EventLoopFuture<[String: Int]>? { winsCounted.withLockedValue { $0 } }

    /// Appends `record` to the journal, if there is one.
    func append(_ record: MatchRecord) {
        journal?.append { MatchRecordCodec.encode(record, into: $0) }
    }

    /// A round ended (its records are appended): once the writer's queue has put them on
    /// disk, `history` indexes this match's rows (neither step on the loop).
    func roundEnded() {
        guard let history, let writer = journal else { return }
        let path = writer.path
        writer.flush { history.journalGrew(path) }
    }

    /// Closes the journal; `done` runs on the loop once it is on disk (at once without one).
    func close(then done: @escaping @Sendable () -> Void) {
        guard let journal else { return done() }
        let loop = self.loop
        journal.close { loop.execute(done) }
    }
}
