import ArgumentParser
import Dispatch
import Foundation
import NIOPosix
import SnapBench
import SnapNet
import SnapPlatform
import StoryLink
import StoryService
import StoryStores

/// `snap-bench story-service`: the story service `snap-bench story` times over TCP, with TLS
/// and without (the baseline), both in this one executable so that the two differ in TLS
/// alone. It is the `StoryServer` `snapcards story serve --open` runs, on an SQLite file; plain
/// TCP on a loopback address is what only a benchmark wants, and stays out of the player's
/// `snapcards`. Not in the help: the story bench starts it and reads its "listening on" lines.
struct BenchStoryService: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "story-service",
        abstract: "The story bench's service over TCP (started by snap-bench story).",
        shouldDisplay: false)

    @Option(help: "Listen on this Unix socket path.") var socket: String
    @Option(help: "The SQLite file.") var database: String
    @Option(help: "Also listen on TCP at this 127.x address (port 0 picks a free one), with no join code.") var listen: String
    @Flag(help: "TCP without TLS (the baseline).") var plainTcp = false

    func validate() throws {
        guard listen.hasPrefix("127.") else { throw ValidationError("--listen is for a 127.x address only") }
    }

    func run() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let database = self.database
        let store = try blockingAwait { try await openStoryStore(database) }
        let server = StoryServer(store: store, loop: group.next(), logger: makeLogger("snap-bench.story", verbose: false))
        // SIGTERM (the bench's stop) or SIGINT: stop listening, close the store, end.
        let stopped = DispatchSemaphore(value: 0)
        let stops = ([SIGINT, SIGTERM] as [Int32]).map { signalNumber in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { stopped.signal() }
            source.resume()
            return source
        }
        defer { stops.forEach { $0.cancel() } }
        do {
            try server.listenLater(unixPath: socket).wait()
            say("listening on unix:\(socket)")
            let (host, port) = try parseHostPort(listen, for: .listen)
            server.joinCode = nil
            let bound = plainTcp ? try server.listenLater(host: host, port: port, tls: nil).wait()
                : try server.listenLater(host: host, port: port, identity: try TLSIdentity.selfMade()).wait()
            say("listening on tcp:" + formatHostPort(host, bound))
        } catch {
            say("error: \(error)")
            _ = try? server.shutdownLater().wait()
            throw ExitCode(3)
        }
        stopped.wait()
        _ = try? server.shutdownLater().wait()
        try? blockingAwait { () async throws -> Void in await store.close() }
        say("stopped")
    }
}
