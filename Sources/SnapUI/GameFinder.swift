#if GUI
import SnapFiles
import SnapLAN
import SnapPlatform
import SnapTable
import Glibc
import NIOConcurrencyHelpers
import SnapBots
import SnapEngine
import SnapNet
import SnapProtocol

// What the Join screen finds and does off the main thread: the games listed (this
// computer's sockets, the local network), and a join in progress.

/// One game in the Join list: on this computer (a Unix socket) or announced on the
/// local network (DNS-SD, docs/LAN.md).
enum Listing: Equatable {
    case local(socketPath: String, info: HostInfo)
    case lan(LANGame)

    var info: HostInfo {
        switch self {
        case .local(_, let info): info
        case .lan(let game): game.info
        }
    }

    var endpoint: Endpoint {
        switch self {
        case .local(let path, _): .unix(path)
        case .lan(let game): game.endpoint
        }
    }
}

/// One join attempt on a background thread; the window's thread reads its outcome.
final class JoinAttempt: Sendable {
    private let inbox = WindowInbox<Result<GameClient, Error>>()

    var result: Result<GameClient, Error>? { inbox.first }

    func finish(_ result: Result<GameClient, Error>) {
        // Cancelled while connecting: say goodbye at once.
        if !inbox.post(result), case .success(let client) = result { client.leave() }
    }

    /// Makes the game off the window's thread (on Swift's concurrency pool) and keeps its outcome.
    func start(_ make: @escaping @Sendable () async throws -> GameClient) {
        Task {
            do { finish(.success(try await make())) } catch { finish(.failure(error)) }
        }
    }

    func cancel() {
        for case .success(let client) in inbox.close() { client.leave() }
    }
}

/// Looks for hosts on this machine about once a second, off the window's thread, and
/// listens for LAN announcements all along (the list is refreshed every 100 ms from
/// those); the scene takes the newest list in `update`.
final class HostScanner: @unchecked Sendable {  // every stored var is only touched under `lock`
    /// How often the list is rebuilt from the LAN browser's games (LAN.md quotes it).
    static let lanRefresh: Duration = .milliseconds(100)
    private let lock = NIOLock()
    private let found = WindowInbox<[Listing]>()
    private var browser: LANBrowser?
    private var triedLAN = false
    /// False once this machine turned out unable to listen for multicast (no network, no route).
    var lanAvailable: Bool {
        lock.lock()
        defer { lock.unlock() }
        return browser != nil || !triedLAN
    }
    private var stopped = false
    private var running = false
    /// Where this machine's hosts are looked for (nil: the environment's).
    private let directory: SocketDirectory?

    init(directory: SocketDirectory? = nil) {
        self.directory = directory
    }

    func start() {
        lock.lock()
        defer { lock.unlock() }
        guard !running else { return }
        running = true
        Task { [self] in await scan() }
    }

    func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
    }

    private var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    /// The list found since the last call, if a scan finished.
    func take() -> [Listing]? { found.takeLatest() }

    /// SNAP_LAN=off: no listening on the network (the UI tests keep all traffic on this machine).
    static var lanEnabled: Bool { currentEnvironment()["SNAP_LAN"] != "off" }

    private func scan() async {
        let directory = self.directory ?? SocketDirectory.default()
        let lan = LANBrowser(loop: GameStarter.loops.next())
        var listening = false
        if Self.lanEnabled { listening = (try? await lan.start()) != nil }
        let machine = SnapService.machineName()
        lock.withLock {
            browser = listening ? lan : nil
            triedLAN = true
        }
        while !isStopped {
            let local = await discoverHosts(in: directory, loop: GameStarter.loops.next())
                .map { Listing.local(socketPath: $0.socketPath, info: $0.info) }
            for _ in 0..<10 where !isStopped {
                // A game of this machine that is also on its socket is listed once, as local.
                let network = (listening ? lan.games : []).filter { game in
                    !(game.machine == machine && local.contains { $0.info.hostName == game.hostName })
                }
                found.post(local + network.map(Listing.lan))
                try? await Task.sleep(for: Self.lanRefresh)
            }
        }
        if listening { await lan.stop() }
    }
}
#endif
