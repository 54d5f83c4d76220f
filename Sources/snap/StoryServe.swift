import ArgumentParser
import Dispatch
import Foundation
import Logging
import NIOCore
import NIOPosix
import SnapNet
import SnapProtocol
import StoryEngine
import StoryService

struct StoryServe: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the story service (headless, until stopped); every match is journalled.",
        discussion: """
            Listens on story.socket in $XDG_RUNTIME_DIR/snap (or --socket), and on TCP with --listen \
            (players give the printed join code). Keeps every match in \
            $XDG_STATE_HOME/snap/story/story.journal; started again (even after kill -9) it goes on \
            from there. Prints "restored N matches", "listening on …" and, on TCP, "join code: …". \
            docs/STORY.md shows how to run it as a systemd user service.
            """)
    @Option(help: "Listen on this Unix socket path instead of the default.") var socket: String?
    @Option(help: "Also listen on TCP, e.g. 0.0.0.0:7788 (port 0 picks a free one).") var listen: String?
    @Option(help: "The join code TCP players must give (default: a random one).") var code: String?
    @Flag(help: "No join code on TCP: for a trusted network only.") var open = false
    @OptionGroup var tls: TLSServerOptions
    /// `snap bench story`: the plain-TCP baseline TLS is measured against, on 127.x only.
    @Flag(help: .hidden) var benchPlainTcp = false
    @Option(help: "The journal file (default: $XDG_STATE_HOME/snap/story/story.journal).") var journal: String?
    @Flag(help: "Log connections and refusals to standard error.") var verbose = false

    func validate() throws {
        if let listen { _ = try validAddress(listen, option: "--listen", use: .listen) }
        if let code, let problem = JoinCode.problem(code) { throw ValidationError("--code: \(problem)") }
    }

    func run() throws {
        // Ctrl-C and SIGTERM stop the service. Caught before it listens: whoever sees
        // "listening on" and then sends SIGTERM must not find it ignored and lost (a
        // benchmark that did so waited for ever).
        let stopped = DispatchSemaphore(value: 0)
        let signals = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stopped.signal() }
            source.resume()
            signal(number, SIG_IGN)
            return source
        }
        let logger = makeLogger("snap.story", verbose: verbose)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let warn: @Sendable (String) -> Void = { printError("warning: \($0)") }
        let server: StoryServer
        do {
            let path: String
            if let journal {
                path = journal
            } else {
                try makePrivateDirectoriesOrThrow(storyStateDirectory())
                path = storyStateDirectory() + "/story.journal"
            }
            let started = ContinuousClock.now
            server = try StoryServer(journalPath: path, loop: group.next(), logger: logger, onWarning: warn)
            let restored = server.restored
            if let fault = restored.fault {
                if let copy = restored.damagedCopy {
                    printError("error: the story journal \(path) is \(fault); the whole file is kept as \(copy), "
                               + "and the service goes on with the \(fault.record - 1) records before the damage")
                } else {
                    warn("the journal's tail was cut: \(fault)")
                }
            }
            for problem in restored.problems { warn("journal \(problem) was skipped") }
            if restored.oldKeysRemoved > 0 {
                let count = restored.oldKeysRemoved
                say("the journal's \(count) player key\(count == 1 ? "" : "s") from an older snap \(count == 1 ? "is" : "are") now kept "
                    + "as SHA-256 digests only; each player's next sign-in moves their name to a key pair")
            }
            let millis = Double((ContinuousClock.now - started).components.attoseconds / 1_000_000_000_000) / 1000
                + Double((ContinuousClock.now - started).components.seconds) * 1000
            say("restored \(restored.matches) matches from \(path) in \(String(format: "%.1f", millis)) ms")
            let socketPath = try socket ?? defaultStorySocketPath(create: true)
            do { try server.listen(unixPath: socketPath) } catch NetError.hostNameTaken {
                throw NetError.noHost("a story service is already running at \(socketPath)")
            }
            say("listening on unix:\(socketPath)")
            if let listen {
                let address = try validAddress(listen, option: "--listen", use: .listen)
                server.joinCode = open ? nil : code.flatMap(JoinCode.normalized) ?? JoinCode.random()
                if benchPlainTcp, !address.host.hasPrefix("127.") {
                    throw ValidationError("--bench-plain-tcp is for benchmarks on a 127.x address only")
                }
                let port = benchPlainTcp ? try server.listen(host: address.host, port: address.port, tls: nil)
                    : try server.listen(host: address.host, port: address.port, identity: try tls.identity())
                say("listening on tcp:" + formatHostPort(address.host, port))
                say(server.joinCode.map { "join code: \($0)" } ?? "join code: none (--open: anyone who can reach the port may play)")
            }
        } catch {
            throw storyFailure(error)
        }
        stopped.wait()
        signals.forEach { $0.cancel() }
        server.shutdown()
        say("stopped")
    }
}
