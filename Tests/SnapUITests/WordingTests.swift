#if GUI
@testable import SnapUI
import Testing

@Suite("What dialogs say")
struct WordingTests {
    @Test("a host's closing words read as a sentence under the dialog's title, without repeating it or a command line")
    func hostWords() {
        #expect(MenuKit.sentence("wrong join code: ask the host for the 6-character join code shown in its lobby", after: "Wrong join code")
            == "Ask the host for the 6-character join code shown in its lobby.")
        #expect(MenuKit.sentence("this game needs its join code: ask the host for it (snapcards join --code XXXXXX)", after: "Wrong join code")
            == "This game needs its join code: ask the host for it.")
        #expect(MenuKit.sentence("the game has already started (watch it with snapcards join --watch)", after: "The game has started")
            == "The game has already started.")
        #expect(MenuKit.sentence("the host is busy: 32 connections at once is its limit", after: "The table is full")
            == "The host is busy: 32 connections at once is its limit.")
        #expect(MenuKit.sentence("", after: "Disconnected") == "The host closed the connection.")
        #expect(MenuKit.sentence("Wrong join code", after: "Wrong join code") == "The host closed the connection.")
    }
}
#endif
