#if GUI
import Foundation
import Logging
import SnapUI
import Testing

/// The suites whose windows and hosts live in the test process: one at a time, because
/// they share the process's hosted games (`GameStarter.tests.hosted.endAll()` ends them all)
/// and its one SDL video subsystem.
@Suite("Windows and hosts in the test process", .serialized)
enum InProcessWindows {}

extension GameStarter {
    /// How the test process starts its games: one owner of the games it hosts, as a program has.
    static let tests = GameStarter(hosted: HostedGames())
}

extension App {
    /// A test's window, starting its games as the test process does (`GameStarter.tests`).
    convenience init(options: WindowOptions, directories: UserDirectories = UserDirectories(), logger: Logger,
                     makeScene: (App) -> Scene) throws(SDLError) {
        try self.init(options: options, logger: logger, games: .tests, directories: directories, makeScene: makeScene)
    }
}

extension App {
    /// Runs the window on a thread of its own, as the program runs it on the main thread,
    /// and awaits its end: a window run on the test's own thread would hold one of the few
    /// threads of Swift's pool, on which the window's own tasks (a join, Host Game, the
    /// Join screen's scan) and the tests beside it run.
    func runOffThePool() async throws {
        let window = OneWindow(app: self)
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, Error>) in
            Thread {
                let ran = Result { try window.app!.run() }
                // The test's thread alone lets the window go (SDL is torn down where it was
                // made, never beside the next test's window).
                window.app = nil
                done.resume(with: ran)
            }.start()
        }
    }
}

/// The test awaits the window's thread: the app is touched by one thread at a time.
private final class OneWindow: @unchecked Sendable {
    var app: App?
    init(app: App) { self.app = app }
}
#endif
