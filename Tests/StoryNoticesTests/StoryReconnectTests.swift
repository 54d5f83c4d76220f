import StoryLink
import StoryProtocol
import Testing

/// A Story client's sign-ins over time, in virtual time: what `story notify` and the
/// window's Story screen do when the service is away, busy, or refuses them.
@Suite("StoryReconnect: signing in again, in virtual time")
struct StoryReconnectTests {
    typealias Action = StoryReconnect.Action

    @Test("a service that is not there: tried again after 1, 2, 4 … 60 s, then every 60 s, until it answers")
    func backoff() {
        var link = StoryReconnect()
        var now = Duration.zero
        #expect(link.handle(.start, now: now) == [.signIn])
        var waits: [Duration] = []
        for _ in 0..<9 {
            let actions = link.handle(.signInFailed("cannot reach the story service", retry: true), now: now)
            guard case .retrying(let after, "cannot reach the story service", false)? = actions.first, actions.count == 1 else {
                Issue.record("\(actions)")
                return
            }
            waits.append(after)
            #expect(link.nextDeadline == now + after)
            // Early, nothing happens; on time, the next sign-in.
            #expect(link.handle(.timerFired, now: now + after - .milliseconds(1)) == [])
            now += after
            #expect(link.handle(.timerFired, now: now) == [.signIn])
        }
        #expect(waits == [1, 2, 4, 8, 16, 32, 60, 60, 60].map { .seconds($0) })
        #expect(link.handle(.signedIn, now: now) == [.signedIn(again: false)])
        #expect(link.nextDeadline == nil && !link.isFinished)
    }

    @Test("a signed-in connection that ends: the wait starts again at 1 s, and the next sign-in is said to be again")
    func lostThenBack() {
        var link = StoryReconnect()
        _ = link.handle(.start, now: .zero)
        _ = link.handle(.signInFailed("busy", retry: true), now: .zero)
        _ = link.handle(.timerFired, now: .seconds(1))
        _ = link.handle(.signInFailed("busy", retry: true), now: .seconds(1))
        _ = link.handle(.timerFired, now: .seconds(3))
        #expect(link.handle(.signedIn, now: .seconds(3)) == [.signedIn(again: false)])
        #expect(link.handle(.lost("the story service connection broke: reset"), now: .seconds(100))
                    == [.retrying(after: .seconds(1), reason: "the story service connection broke: reset", wasSignedIn: true)])
        #expect(link.handle(.timerFired, now: .seconds(101)) == [.signIn])
        #expect(link.handle(.signedIn, now: .seconds(101)) == [.signedIn(again: true)])
        // Inputs that do not fit the phase change nothing.
        #expect(link.handle(.signedIn, now: .seconds(102)) == [])
        #expect(link.handle(.timerFired, now: .seconds(500)) == [])
    }

    @Test("a refusal another try would meet again ends it; close ends it quietly")
    func givesUp() {
        var refused = StoryReconnect()
        _ = refused.handle(.start, now: .zero)
        #expect(refused.handle(.signInFailed("that name is taken", retry: false), now: .zero) == [.finished("that name is taken")])
        #expect(refused.isFinished && refused.nextDeadline == nil)
        #expect(refused.handle(.timerFired, now: .seconds(60)) == [])

        var closed = StoryReconnect()
        _ = closed.handle(.start, now: .zero)
        _ = closed.handle(.signInFailed("busy", retry: true), now: .zero)
        #expect(closed.handle(.close, now: .zero) == [])
        #expect(closed.isFinished && closed.nextDeadline == nil)
        #expect(closed.handle(.timerFired, now: .seconds(1)) == [])
    }

    @Test("which sign-in failures are worth another try: the network and a busy service, not a refusal of the player")
    func worthRetrying() {
        #expect(StoryClientError.cannotConnect("/run/story.sock", "no such file").isWorthRetrying)
        #expect(StoryClientError.broken("reset").isWorthRetrying)
        for refusal in [StoryRefusal.busy, .overBudget, .unavailable] {
            #expect(StoryClientError.refused(refusal, "").isWorthRetrying, "\(refusal)")
        }
        #expect(!StoryClientError.keyFile("/key", "unreadable").isWorthRetrying)
        #expect(!StoryClientError.refused(.signIn, "that name is taken").isWorthRetrying)
        #expect(!StoryClientError.refused(.wrongKey, "").isWorthRetrying)
        struct Other: Error {}
        #expect(!Other().storySignInIsWorthRetrying)
    }
}
