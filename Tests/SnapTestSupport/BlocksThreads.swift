import Foundation
import NIOConcurrencyHelpers
import SnapPlatform
import Testing

/// For suites whose tests block the thread they run on (a child process's exit, a
/// semaphore, a poll with `usleep`): each test runs on `OffPoolExecutor`'s threads, never on
/// Swift's cooperative pool. That pool has a thread a core; two blocked tests on a 2-core
/// machine would leave none for the product's own tasks (which run on that pool, as in a
/// player's process, where nothing blocks), and a test waiting for them would wait for
/// minutes. At most `width` of these tests run at once, as on the pool before.
public struct BlocksThreads: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self  // each test case, not the suite around them
    }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        if Self.inside { return try await function() }  // a suite inside a suite that says so too
        await BlockingTestGate.shared.enter()
        defer { BlockingTestGate.shared.leave() }
        // Timed from its turn at the gate, not from its start: Swift Testing's own times
        // include the wait for a place, and so overstate every test of a busy run.
        let started = ContinuousClock.now
        defer { TestTimes.record(test, ContinuousClock.now - started) }
        try await Self.$inside.withValue(true) {
            try await withTaskExecutorPreference(OffPoolExecutor.shared) { try await function() }
        }
    }

    @TaskLocal private static var inside = false
}

extension Trait where Self == BlocksThreads {
    /// This suite's tests block threads: run them off the cooperative pool (`BlocksThreads`).
    public static var blocksThreads: Self { Self() }
}

/// How many blocking tests run at once: four on the 2-core machines CI runs on, since most
/// of them wait for their processes rather than compute (a quiet run used about 0.8 of its
/// two cores with three). `SNAP_BLOCKING_TESTS` sets another width, to try one.
private final class BlockingTestGate: @unchecked Sendable {  // its state is guarded by `lock`
    static let shared = BlockingTestGate(width: ProcessInfo.processInfo.environment["SNAP_BLOCKING_TESTS"].flatMap { Int($0) }.map { max(1, $0) } ?? 4)
    private let width: Int
    private let lock = NIOLock()
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(width: Int) { self.width = width }

    func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now: Bool = lock.withLock {
                if running < width {
                    running += 1
                    return true
                }
                waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func leave() {
        let next: CheckedContinuation<Void, Never>? = lock.withLock {
            if waiting.isEmpty {
                running -= 1
                return nil
            }
            return waiting.removeFirst()  // its place passes on: `running` stays
        }
        next?.resume()
    }
}

/// Where a run's time goes: with `SNAP_TEST_TIMES` set to a file, every blocking test
/// appends its own time (seconds, a tab, its id) there; scripts/test prints the slowest.
enum TestTimes {
    private static let path = ProcessInfo.processInfo.environment["SNAP_TEST_TIMES"]
    private static let lock = NIOLock()

    static func record(_ test: Test, _ took: Duration) {
        guard let path else { return }
        let seconds = Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18
        let line = String(format: "%.2f\t%@\n", seconds, test.id.description)
        lock.withLock {
            guard let file = fopen(path, "a") else { return }
            fputs(line, file)
            fclose(file)
        }
    }
}
