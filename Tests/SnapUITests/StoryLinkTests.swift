#if GUI
import Glibc
import SnapTestSupport
import StoryLink
import Testing
@testable import SnapUI

/// The Story window's link to the service signs in and reads in a task of its own: the
/// window's thread only makes it and drains what it brought.
@Suite("Story window's link", .blocksThreads)
struct StoryLinkTests {
    @Test("made while the service has not answered the hello, it returns at once; the service gone, drain reports each failed sign-in and when the next try comes",
          .timeLimit(.minutes(10)))  // a hang's bound: in the full suite the pool may be busy for minutes
    func signsInOffTheWindowThread() async throws {
        let path = scratchDirectory("story-link") + "/story.socket"
        // A service that takes connections into its queue and never answers.
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(listener >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0 && listen(listener, 4) == 0)

        // Signing in waits for an answer that never comes; making the link does not.
        let link = StoryServiceConnection(endpoint: .unix(path), name: "Ann")
        #expect(link.drain().state == nil)
        // Closing the listener resets the connection waiting in its queue (and leaves the
        // path without a listener): the link says so, and that it tries again in 1 s, then 2 s.
        close(listener)
        var said: [String] = []
        while said.count < 2 {
            switch link.drain().state {
            case .retrying(let words)?: said.append(words)
            case let other?: Issue.record("\(other)"); return
            case nil: try await Task.sleep(for: .milliseconds(20))
            }
        }
        #expect(said[0].hasSuffix("Trying again in 1 s."), "\(said)")
        #expect(said[1].hasPrefix("cannot reach the story service at \(path)") && said[1].hasSuffix("Trying again in 2 s."), "\(said)")
    }
}
#endif
