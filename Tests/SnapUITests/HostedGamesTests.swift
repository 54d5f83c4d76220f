#if GUI
import Foundation
import Logging
import ServiceLifecycle
import SnapMatchFiles
import SnapNet
import SnapPlatform
import SnapProtocol
import SnapTestSupport
import Testing
@testable import SnapUI

/// The games a process hosts live in one `HostedGames`, a service of the process's group:
/// a game started through the `GameStarter` is among them until it is over, and the group's
/// graceful shutdown (what SIGINT or SIGTERM starts) or its task's cancellation ends it, the
/// socket gone and the journal closed with its last record. No window: the owner alone.
@Suite("Hosted games under service-lifecycle")
struct HostedGamesTests {
    static let logger = Logger(label: "test")

    /// Sockets and journals in a private folder of their own, never the user's.
    static func directories(_ name: String) -> UserDirectories {
        let base = "\(scratchRoot)/hosted-\(name)"
        try? FileManager.default.removeItem(atPath: base)
        try? FileManager.default.createDirectory(atPath: base + "/run", withIntermediateDirectories: true)
        chmod(base + "/run", 0o700)
        return UserDirectories(sockets: SocketDirectory(path: base + "/run"), settings: base + "/settings",
                               seatTokens: SeatTokenStore(directory: base + "/seats"), journals: base + "/matches")
    }

    enum Ending: String, CaseIterable { case gracefulShutdown, cancellation }

    @Test("a game started through the starter is kept by the owner until the group ends it, journal closed",
          .timeLimit(.minutes(1)), arguments: Ending.allCases)  // a game the owner never ended: a failure, not a hang
    func groupEndsHostedGames(ending: Ending) async throws {
        let directories = Self.directories(ending.rawValue)
        let hosted = HostedGames()
        let games = GameStarter(hosted: hosted)
        let group = ServiceGroup(configuration: .init(services: [.init(service: hosted)], logger: Self.logger))
        let running = Task { try await group.run() }

        let host = try await games.host(name: "Owned", bots: 1, directories: directories, logger: Self.logger)
        let solo = games.solo(name: "Alone", opponents: 1, level: .easy, directories: directories, logger: Self.logger)
        let server = try #require(host.server)
        let socket = try #require(host.socketPath)
        // The match under way (its journal has begun): Start, then wait for its first record.
        let (started, didStart) = AsyncStream<Void>.makeStream()
        server.observe { action in
            if case .record(let record) = action, case .started = record.entry { didStart.finish() }
        }
        host.start()
        for await _ in started {}
        #expect(hosted.games.map(\.hostName) == ["Owned", "Alone"])
        #expect(FileManager.default.fileExists(atPath: socket))

        switch ending {
        case .gracefulShutdown: await group.triggerGracefulShutdown()
        case .cancellation: running.cancel()
        }
        try await running.value
        // The owner's service returned only once each game had ended.
        let reason = try await server.finished.get()
        _ = try await #require(solo.server).finished.get()
        #expect(hosted.games.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: socket), "the socket outlived its game (\(reason))")
        let journals = MatchJournal.files(in: directories.journals)
        let owned = try journals.map { try MatchJournal.read(path: $0) }.first { journal in
            if case .started(let start) = journal.records.first?.entry { start.hostName == "Owned" } else { false }
        }
        let last = try #require(owned?.records.last?.entry)
        guard case .ended = last else {
            Issue.record("the hosted game's journal was not closed: its last record is \(last)")
            return
        }
    }
}
#endif
