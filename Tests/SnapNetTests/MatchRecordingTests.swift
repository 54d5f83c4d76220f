import Glibc
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SnapJournal
import SnapMatchFiles
import SnapProtocol
import SnapTestSupport
import Testing
@testable import SnapNet

/// A host's match on disk (`MatchRecording`): its journal, and the history it hands its
/// rounds to and takes earlier matches' wins from. Nothing is timed: each test waits for
/// the event it looks at.
@Suite("A host's match recording")
struct MatchRecordingTests {
    let loop = MultiThreadedEventLoopGroup.singleton.next()

    static func record(_ sequence: UInt64) -> MatchRecord {
        MatchRecord(sequence: sequence, timeMicros: sequence * 1000, entry: .ended(reason: "record \(sequence)"))
    }

    /// The journal's records as written (payloads, decoded).
    static func written(_ path: String) throws -> [MatchRecord] {
        try Journal.read(path: path).records.map { try MatchRecordCodec.decode($0) }
    }

    /// A history that counts `wins` and tells `grew` of each journal that grew.
    final class History: MatchHistory, @unchecked Sendable {  // behind `lock`
        let wins: [String: Int]
        private let lock = NIOLock()
        private var asked: [(directory: String, excluding: String)] = []
        private var grewPromise: EventLoopPromise<String>?
        init(wins: [String: Int], grew: EventLoopPromise<String>? = nil) { (self.wins, grewPromise) = (wins, grew) }

        var questions: [(directory: String, excluding: String)] { lock.withLock { asked } }

        func roundsWon(in directory: String, excluding: String, then: @escaping @Sendable (Result<[String: Int], any Error>) -> Void) {
            lock.withLock { asked.append((directory, excluding)) }
            then(.success(wins))
        }

        func journalGrew(_ path: String) {
            lock.withLock { () -> EventLoopPromise<String>? in defer { grewPromise = nil }; return grewPromise }?.succeed(path)
        }
    }

    @Test("a journal started mid-lobby holds what was logged before, then what follows; closed, it is on disk")
    func journalHoldsTheWholeMatch() async throws {
        let recording = MatchRecording(loop: loop, logger: Logger(label: "test"), history: nil)
        let directory = scratchDirectory("recording")
        let path = try await recording.start(in: directory, hostName: "Ann", onWarning: { Issue.record("warned: \($0)") },
                                             log: { [Self.record(0), Self.record(1)] }, counted: { _ in Issue.record("counted") }).get()
        #expect(path.hasPrefix(directory + "/") && path.hasSuffix(".snapjournal"))
        let closed = loop.makePromise(of: Void.self)
        loop.execute {
            recording.append(Self.record(2))
            recording.close { closed.succeed() }
        }
        try await closed.futureResult.get()
        #expect(try Self.written(path) == [Self.record(0), Self.record(1), Self.record(2)])
        #expect(recording.earlierWinsCounted == nil)  // no history: nothing counted
    }

    @Test("without a journal nothing is written, and closing is done at once")
    func noJournal() async throws {
        let recording = MatchRecording(loop: loop, logger: Logger(label: "test"), history: History(wins: [:]))
        let closedAtOnce = try await loop.submit { () -> Bool in
            recording.append(Self.record(0))
            recording.roundEnded()
            let closed = NIOLockedValueBox(false)
            recording.close { closed.withLockedValue { $0 = true } }
            return closed.withLockedValue { $0 }
        }.get()
        #expect(closedAtOnce)
        #expect(recording.earlierWinsCounted == nil)
    }

    @Test("the earlier matches' wins come from the history, this journal excluded, and reach the session on the loop")
    func earlierWins() async throws {
        let history = History(wins: ["Ann": 2, "Bob": 1])
        let recording = MatchRecording(loop: loop, logger: Logger(label: "test"), history: history)
        let directory = scratchDirectory("recording")
        let counted = loop.makePromise(of: [String: Int].self)
        let path = try await recording.start(in: directory, hostName: "Ann", onWarning: { _ in }, log: { [] }) { [loop] wins in
            #expect(loop.inEventLoop)
            counted.succeed(wins)
        }.get()
        #expect(try await counted.futureResult.get() == ["Ann": 2, "Bob": 1])
        #expect(try await recording.earlierWinsCounted?.get() == ["Ann": 2, "Bob": 1])
        #expect(history.questions.map(\.directory) == [directory])
        #expect(history.questions.map(\.excluding) == [path])
        let closed = loop.makePromise(of: Void.self)
        loop.execute { recording.close { closed.succeed() } }
        try await closed.futureResult.get()
    }

    @Test("a round's end: the history hears the journal grew once its records are on disk")
    func roundEndReachesTheHistory() async throws {
        let grew = loop.makePromise(of: String.self)
        let recording = MatchRecording(loop: loop, logger: Logger(label: "test"), history: History(wins: [:], grew: grew))
        let path = try await recording.start(in: scratchDirectory("recording"), hostName: "Ann", onWarning: { _ in },
                                             log: { [Self.record(0)] }, counted: { _ in }).get()
        loop.execute {
            recording.append(Self.record(1))
            recording.roundEnded()
        }
        #expect(try await grew.futureResult.get() == path)
        #expect(try Self.written(path) == [Self.record(0), Self.record(1)])  // flushed before the history heard
        let closed = loop.makePromise(of: Void.self)
        loop.execute { recording.close { closed.succeed() } }
        try await closed.futureResult.get()
    }

    @Test("resuming: a whole journal is read as it is; a torn tail is cut with a warning")
    func readForResuming() throws {
        let path = scratchDirectory("recording") + "/match.snapjournal"
        let writer = try JournalWriter(creating: path, kind: MatchRecordCodec.kind, onError: { _ in })
        for sequence in 0..<3 { writer.append(MatchRecordCodec.encode(Self.record(UInt64(sequence)))) }
        writer.close()
        let warnings = NIOLockedValueBox<[String]>([])
        let warn: @Sendable (String) -> Void = { line in warnings.withLockedValue { $0.append(line) } }
        let whole = try MatchRecording.readForResuming(path, fromLastGoodRecord: false, onWarning: warn)
        #expect(whole.records == [Self.record(0), Self.record(1), Self.record(2)])
        #expect(warnings.withLockedValue { $0 }.isEmpty)
        #expect(truncate(path, off_t(whole.intactLength - 3)) == 0)
        let torn = try MatchRecording.readForResuming(path, fromLastGoodRecord: false, onWarning: warn)
        #expect(torn.records == [Self.record(0), Self.record(1)])
        #expect(warnings.withLockedValue { $0 }.map { $0.hasPrefix("the journal's tail was cut: ") } == [true])
    }
}
