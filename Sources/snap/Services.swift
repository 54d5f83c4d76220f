import Dispatch
import Logging
import NIOCore
import ServiceLifecycle
import SnapNet

/// `snap host --headless` as a service (swift-service-lifecycle): it listens, plays until
/// the game ends, and on a graceful shutdown (SIGINT, SIGTERM) ends the game on purpose,
/// so that clients hear "host quit". It listens only once the group has taken the
/// signals: whoever sees "listening on" and sends SIGTERM is always heard.
struct HeadlessHostService: Service {
    let server: HostServer
    /// Listens (and prints where); returns the TCP address to announce, if any.
    let listen: @Sendable () throws -> (host: String, port: Int)?
    /// Where the TCP address goes once bound (nil: none), for `LANAnnouncerService`.
    let bound: EventLoopPromise<(host: String, port: Int)?>

    func run() async throws {
        do {
            bound.succeed(try listen())
        } catch {
            bound.succeed(nil)
            throw error
        }
        try await withGracefulShutdownHandler {
            _ = try await server.finished.get()
        } onGracefulShutdown: {
            server.submit(.quit)
        }
    }
}

/// The game's announcement on the local network (docs/LAN.md) as a service of its own:
/// started once the host is bound on TCP, and stopped first on a shutdown, so that every
/// list drops the game (the goodbye) before the host closes.
struct LANAnnouncerService: Service {
    let server: HostServer
    let bound: EventLoopFuture<(host: String, port: Int)?>
    let warn: @Sendable (String) -> Void

    func run() async throws {
        var announcing = false
        if let address = try await bound.get() {
            do {
                try server.announceOnLAN(listeningOn: address.host, port: address.port)
                announcing = true
            } catch {
                warn("not announced on the local network (\(error)); players can still connect to the address")
            }
        }
        // Until the group shuts down (the host's game ended, or a signal): ending sooner
        // would end the group.
        try? await gracefulShutdown()
        if announcing { try? await server.stopAnnouncing().get() }
    }
}

/// Runs `services` in one ServiceGroup until they end: SIGINT and SIGTERM shut it down
/// gracefully; any service ending ends the others. Returns the first error a service threw.
func runServices(_ services: [any Service], logger: Logger) async throws {
    let group = ServiceGroup(configuration: .init(
        services: services.map {
            .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup,
                  failureTerminationBehavior: .gracefullyShutdownGroup)
        },
        gracefulShutdownSignals: [.sigterm, .sigint],
        logger: logger))
    try await group.run()
}

/// Runs `body` to its end from a synchronous command's `run()`, on the cooperative pool,
/// and rethrows what it threw. (The commands stay synchronous: the windows want the main
/// thread to themselves.)
func blockingRun(_ body: @escaping @Sendable () async throws -> Void) throws {
    final class Outcome: @unchecked Sendable {  // written before `done` is signalled, read after
        var error: Error?
    }
    let outcome = Outcome()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { try await body() } catch { outcome.error = error }
        done.signal()
    }
    done.wait()
    if let error = outcome.error { throw error }
}
