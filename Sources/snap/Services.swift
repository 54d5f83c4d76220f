import Logging
import NIOCore
import ServiceLifecycle
import SnapCommandLine
import SnapNet

/// `snapcards host --headless` as a service (swift-service-lifecycle): the host runtime
/// started (it listens, prints where, starts or goes on with the journal), then played
/// until the game ends; a graceful shutdown (SIGINT, SIGTERM) ends the game on purpose, so
/// that clients hear "host quit". The group takes the signals before anything listens:
/// whoever sees "listening on" and sends SIGTERM is always heard.
struct HeadlessHostService: Service {
    let runtime: HostRuntime
    /// A resumed match's journal: the match goes on once the host listens.
    let resumedFrom: String?

    func run() async throws {
        _ = try await runtime.start()
        if let resumedFrom {
            say("resumed \(resumedFrom) at command \(await runtime.server.commandsApplied)")
            runtime.server.resume()
        }
        try await runtime.playUntilOver()
    }
}
