#if GUI
import SnapPlatform
import SnapScreens
import StoryLink
import StoryProtocol

/// The story service as the window sees it: one signed-in, watching connection, signed in
/// to and read by a task; what it brings waits in an inbox that the scene drains every
/// frame (woken by `WindowWake`), so a turn taken elsewhere shows at once. Nothing here
/// waits on the window's thread: requests are queued for the task to send, in order. When
/// the service goes away the task signs in again as `StoryReconnect` says (as `story
/// notify` does), and watches and lists again once back.
public final class StoryServiceConnection: Sendable {
    /// How the connection stands, as the window shows it (connected, retrying in words, ended).
    typealias State = StoryModel.Connection

    /// What the window queues, and a connection's end (which wakes the sending loop).
    private enum Outgoing: Sendable {
        case request(StoryRequest)
        case ended(connection: Int, reason: String)
    }

    /// What the link's task hands the window: replies, and how the connection stands.
    private enum Arrival: Sendable {
        case reply(StoryReply)
        case state(State)
    }

    private let inbox = WindowInbox<Arrival>()
    private let outgoing: AsyncStream<Outgoing>.Continuation
    private let task: Task<Void, Never>

    public init(endpoint: StoryEndpoint, name: String, joinCode: String = "", trust: ServerTrust? = nil) {
        let (stream, outgoing) = AsyncStream.makeStream(of: Outgoing.self)
        self.outgoing = outgoing
        let inbox = self.inbox
        task = Task.detached {
            let origin = ContinuousClock.now
            func now() -> Duration { ContinuousClock.now - origin }
            var link = StoryReconnect()
            var actions = link.handle(.start, now: now())
            var queued = stream.makeAsyncIterator()
            var client: StoryClient?
            var connection = 0
            while !Task.isCancelled {
                guard !actions.isEmpty else {
                    guard let due = link.nextDeadline else { return }
                    do { try await Task.sleep(until: origin + due, clock: .continuous) } catch { return }
                    actions = link.handle(.timerFired, now: now())
                    continue
                }
                switch actions.removeFirst() {
                case .signIn:
                    do {
                        client = try await StoryKeyStore.default().signIn(endpoint: endpoint, name: name, joinCode: joinCode,
                                                                          timeoutSeconds: 0, trust: trust)
                        actions += link.handle(.signedIn, now: now())
                    } catch {
                        actions += link.handle(.signInFailed("\(error)", retry: error.storySignInIsWorthRetrying), now: now())
                    }
                case .signedIn(let again):
                    guard let signedIn = client else { return }
                    connection += 1
                    inbox.post(.state(.connected(again: again)))
                    let reason = await Self.serve(signedIn, connection: connection, queued: &queued, outgoing: outgoing, inbox: inbox)
                    signedIn.hangUp()
                    client = nil
                    guard let reason else { return }  // the window went
                    actions += link.handle(.lost(reason), now: now())
                case .retrying(let after, let reason, let wasSignedIn):
                    let seconds = after.components.seconds
                    inbox.post(.state(.retrying(wasSignedIn ? "The story service went away (\(reason)); signing in again in \(seconds) s."
                                                    : "\(reason). Trying again in \(seconds) s.")))
                case .finished(let reason):
                    inbox.post(.state(.ended(reason)))
                    return
                }
            }
        }
    }

    /// One signed-in connection: watch and list, then what the window queues goes out in
    /// order while a reader hands in what comes; returns why it ended (nil: the window went).
    private static func serve(_ client: StoryClient, connection: Int, queued: inout AsyncStream<Outgoing>.Iterator,
                              outgoing: AsyncStream<Outgoing>.Continuation, inbox: WindowInbox<Arrival>) async -> String? {
        let reader = Task {
            while true {
                do { inbox.post(.reply(try await client.next())) } catch {
                    outgoing.yield(.ended(connection: connection, reason: "\(error)"))
                    return
                }
            }
        }
        defer { reader.cancel() }
        do {
            try await client.send(.watch)
            try await client.send(.list)
        } catch {
            return "\(error)"
        }
        while let item = await queued.next() {
            switch item {
            case .request(let request):
                do { try await client.send(request) } catch { return "\(error)" }
            case .ended(let ended, let reason):
                if ended == connection { return reason }  // an older connection's end is old news
            }
        }
        return nil
    }

    /// What arrived since the last call, and how the connection stands if that changed.
    func drain() -> (replies: [StoryReply], state: State?) {
        var drained: (replies: [StoryReply], state: State?) = ([], nil)
        for arrival in inbox.takeAll() {
            switch arrival {
            case .reply(let reply): drained.replies.append(reply)
            case .state(let state): drained.state = state
            }
        }
        return drained
    }

    /// Queues `request` for the connection's task (which sends it after those before it;
    /// while the service is away, once it is back).
    func send(_ request: StoryRequest) {
        outgoing.yield(.request(request))
    }

    deinit {
        outgoing.finish()
        task.cancel()
    }
}
#endif
