import ArgumentParser
import Glibc
import SnapBytes
import SnapCommandLine
import UnixSignals
import SnapDBus
import SnapPlatform
import SnapProtocol
import StoryEngine
import StoryNotices
import StoryLink
import StoryProtocol
import StoryService
import StoryStores

/// `snapcards story notify`: desktop notifications for a player's matches while no window is open.
struct StoryNotify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: "Post a desktop notification when it is your turn, your time runs out within the hour, or a match ends.",
        discussion: """
            Signs in, watches your matches and posts each notice through the desktop's notification \
            service (org.freedesktop.Notifications on the session bus, DBUS_SESSION_BUS_ADDRESS); \
            each is also printed as "notice: …". Runs until stopped (Ctrl-C, SIGTERM: exit 0); when \
            the story service goes away it says so and signs in again, waiting \
            \(StoryReconnect.firstWait.components.seconds) s, \((StoryReconnect.firstWait * 2).components.seconds) s … up to \
            \(StoryReconnect.longestWait.components.seconds) s between tries. On start it tells the turns that wait for you \
            now; after a reconnection only what changed meanwhile. docs/STORY.md shows how to run \
            it as a systemd user service.
            """)
    @OptionGroup var player: StoryPlayerOptions
    @Flag(help: "Post what waits for you now (your turns, deadlines within the hour), then exit: for scripts.")
    var once = false

    /// Seconds a read waits before the deadlines are looked at again and the service is
    /// pinged (also the sign-in's time limit).
    @Option(help: ArgumentHelp("Seconds between looks at the deadlines, each with a ping of the service (1 to 600): longer wakes a laptop less often, shorter notices a vanished service sooner.",
                               valueName: "seconds"))
    var tick = StoryNotices.checkSeconds

    func validate() throws {
        guard (1...600).contains(tick) else { throw ValidationError("--tick is 1 to 600 seconds") }
    }

    func run() async throws {
        // Ctrl-C and SIGTERM end it at once, whatever it waits for. (Trapped the way
        // swift-service-lifecycle does: on Linux a signal set to SIG_IGN, as Darwin's dispatch
        // sources want, may be discarded before the source sees it, and notify never stopped.)
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let stopping = Task {
            for await _ in signals {
                say("stopped")
                Glibc.exit(0)
            }
        }
        defer { stopping.cancel() }

        let name = try player.playerName()
        let endpoint = try player.endpoint()
        let trust = try player.tls.trust()
        let joinCode = player.code.flatMap(JoinCode.normalized) ?? ""
        let desktop: DesktopNotifier
        do { desktop = try DesktopNotifier() } catch {
            printError("error: \(error)")
            throw ExitCode(1)
        }
        let watch = NoticeWatch(poster: NoticePoster(desktop: desktop, failuresAreErrors: once),
                                notices: StoryNotices(player: name))

        if once {
            if !(try await watch.postWaiting(player)) { throw ExitCode(1) }
            return
        }
        // Signs in again when the service goes away, for as long as it runs (StoryReconnect).
        let origin = ContinuousClock.now
        func now() -> Duration { ContinuousClock.now - origin }
        var link = StoryReconnect()
        var actions = link.handle(.start, now: now())
        var lastError: (any Error)?
        while true {
            guard !actions.isEmpty else {
                // Waiting to try again: sleep until the machine's deadline.
                guard let due = link.nextDeadline else { return }
                try await Task.sleep(until: origin + due, clock: .continuous)
                actions = link.handle(.timerFired, now: now())
                continue
            }
            switch actions.removeFirst() {
            case .signIn:
                let ended = await watch.watch(endpoint: endpoint, name: name, joinCode: joinCode, tick: tick, trust: trust) {
                    actions += link.handle(.signedIn, now: now())
                }
                switch ended {
                case .notSignedIn(let error):
                    lastError = error
                    actions += link.handle(.signInFailed("\(error)", retry: error.storySignInIsWorthRetrying), now: now())
                case .wentAway(let error):
                    actions += link.handle(.lost("\(error)"), now: now())
                }
            case .signedIn:
                break  // `watch` says "watching N matches"; after a loss, only what changed is news
            case .retrying(let after, let reason, let wasSignedIn):
                let seconds = after.components.seconds
                warn(wasSignedIn ? "the story service went away (\(reason)); signing in again in \(seconds) s"
                                 : "\(reason); trying again in \(seconds) s")
            case .finished:
                // A refusal another try would meet again.
                if let error = lastError as? StoryClientError {
                    printError("error: \(error)")
                    throw ExitCode(1)
                }
                throw storyFailure(lastError ?? StoryClientError.broken("signing in failed"))
            }
        }
    }
}

/// What `story notify` posts, across its connections (one at a time: the command awaits
/// each before the next).
final class NoticeWatch {
    private var poster: NoticePoster
    private var notices: StoryNotices
    private var nonce: UInt64 = 0

    init(poster: NoticePoster, notices: StoryNotices) {
        self.poster = poster
        self.notices = notices
    }

    enum Ended: Sendable {
        case notSignedIn(any Error)
        case wentAway(any Error)
    }

    private func now() -> UInt64 { UInt64(max(0, time(nil))) }

    /// `--once`: what waits for the player now; whether every notice was shown.
    func postWaiting(_ player: StoryPlayerOptions) async throws -> Bool {
        let matches = try await withStoryClient(player) { try await $0.list() }
        return poster.post(notices.listed(matches, at: now()))
    }

    /// Signs in (then says so through `signedIn`), watches, and posts until the connection ends.
    func watch(endpoint: StoryEndpoint, name: String, joinCode: String, tick: Int, trust: ServerTrust,
               signedIn: () -> Void) async -> Ended {
        let client: StoryClient
        do {
            client = try await StoryKeyStore.default().signIn(endpoint: endpoint, name: name, joinCode: joinCode,
                                                              timeoutSeconds: tick, trust: trust)
            try await client.send(.watch)
            let matches = try await client.list()
            // What was pushed while the list was on its way is in the list already.
            _ = await client.takeUpdates()
            signedIn()
            say("watching \(matches.count) match\(matches.count == 1 ? "" : "es") for \(name)")
            poster.post(notices.listed(matches, at: now()))
        } catch {
            return .notSignedIn(error)
        }
        defer { client.hangUp() }
        do {
            while true {
                let reply: StoryReply
                do {
                    reply = try await client.next()
                } catch StoryClientError.broken("no answer in time") {
                    // Quiet for a while: the deadlines' turn, and a ping (a TCP peer that
                    // vanished says nothing until written to).
                    poster.post(notices.deadlines(at: now()))
                    nonce &+= 1
                    try await client.ping(nonce)
                    for match in await client.takeUpdates() { poster.post(notices.updated(match, at: now())) }
                    continue
                }
                if case .update(let match) = reply { poster.post(notices.updated(match, at: now())) }
                poster.post(notices.deadlines(at: now()))
            }
        } catch {
            return .wentAway(error)
        }
    }
}

/// Posts notices on the desktop, each match's newest replacing its last one there, and
/// prints each posted as "notice: …".
struct NoticePoster {
    let desktop: DesktopNotifier
    /// `--once`: a notice not shown is an error (exit 1); running on: a warning.
    let failuresAreErrors: Bool
    /// The notification id each match's last notice got.
    private var shown: [StoryMatchID: UInt32] = [:]

    init(desktop: DesktopNotifier, failuresAreErrors: Bool) {
        self.desktop = desktop
        self.failuresAreErrors = failuresAreErrors
    }

    /// Returns whether every notice was shown.
    @discardableResult
    mutating func post(_ notices: [StoryNotice]) -> Bool {
        var all = true
        for notice in notices {
            do {
                shown[notice.match] = try desktop.notify(summary: notice.summary, body: notice.body,
                                                         replacing: shown[notice.match] ?? 0)
                say("notice: \(notice)")
            } catch {
                printError("\(failuresAreErrors ? "error" : "warning"): could not show \"\(notice.summary)\": \(error)")
                all = false
            }
        }
        return all
    }
}
