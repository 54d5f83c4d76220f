import SnapScreens
import Testing

@Suite("What dialogs say")
struct WordingTests {
    @Test("a host's closing words read as a sentence under the dialog's title, without repeating it or a command line")
    func hostWords() {
        #expect(Wording.sentence("wrong join code: ask the host for the 6-character join code shown in its lobby", after: "Wrong join code")
            == "Ask the host for the 6-character join code shown in its lobby.")
        #expect(Wording.sentence("this game needs its join code: ask the host for it (snapcards join --code XXXXXX)", after: "Wrong join code")
            == "This game needs its join code: ask the host for it.")
        #expect(Wording.sentence("the game has already started (watch it with snapcards join --watch)", after: "The game has started")
            == "The game has already started.")
        #expect(Wording.sentence("the host is busy: 32 connections at once is its limit", after: "The table is full")
            == "The host is busy: 32 connections at once is its limit.")
        #expect(Wording.sentence("", after: "Disconnected") == "The host closed the connection.")
        #expect(Wording.sentence("Wrong join code", after: "Wrong join code") == "The host closed the connection.")
    }

    @Test("NIO's reasons boiled down to what a player can act on; places shortened")
    func reasons() {
        #expect(Wording.shortReason("connect(descriptor:addr:size:): Connection refused (errno: 111)") == "connection refused")
        #expect(Wording.shortReason("No such file or directory") == "the game is gone")
        #expect(Wording.shortReason(String(repeating: "x", count: 90)) == String(repeating: "x", count: 77) + "…")
        #expect(Wording.shortPlace("unix:/run/user/1000/snap/Ann.sock") == "\"Ann\"")
        #expect(Wording.shortPlace("tcp:192.168.1.20:7777") == "192.168.1.20:7777")
    }
}
