import SnapScreens
import Testing

@Suite("The single-player setup's model")
struct SoloSetupModelTests {
    @Test("Play starts the chosen game; the name is saved only when it changed")
    func play() {
        var setup = SoloSetupModel(savedName: "Ann")
        #expect(setup.opponents == 3 && setup.level == .normal)
        _ = setup.handle(.opponents(1), now: 0)
        _ = setup.handle(.level(.hard), now: 0)
        #expect(setup.handle(.play, now: 0) == [.startSolo(SoloGame(name: "Ann", opponents: 1, level: .hard))])
        _ = setup.handle(.focusName(true), now: 0)
        _ = setup.handle(.edit(.type("a")), now: 0)
        #expect(setup.handle(.enter, now: 0) == [.saveName("Anna"), .startSolo(SoloGame(name: "Anna", opponents: 1, level: .hard))])
        #expect(setup.handle(.play, now: 0) == [.startSolo(SoloGame(name: "Anna", opponents: 1, level: .hard))], "saved once")
    }

    @Test("a name that cannot be used is said in words, focused, and nothing starts; typing clears the words")
    func badName() {
        var setup = SoloSetupModel(savedName: "Ann")
        _ = setup.handle(.focusName(true), now: 0)
        _ = setup.handle(.edit(.type(" ")), now: 0)
        _ = setup.handle(.focusName(false), now: 0)
        #expect(setup.handle(.play, now: 0).isEmpty)
        #expect(setup.nameError == "A name cannot start or end with a space.")
        #expect(setup.name.isFocused)
        _ = setup.handle(.edit(.backspace), now: 0)
        #expect(setup.nameError == nil)
        _ = setup.handle(.edit(.type("#")), now: 0)
        #expect(setup.nameError?.hasPrefix("A name cannot hold") == true)
    }

    @Test("Esc leaves the name field first, then goes back to the menu; Tab moves the focus in and out")
    func escape() {
        var setup = SoloSetupModel(savedName: "Ann")
        _ = setup.handle(.tab, now: 0)
        #expect(setup.name.isFocused)
        #expect(setup.handle(.escape, now: 0).isEmpty)
        #expect(!setup.name.isFocused)
        #expect(setup.handle(.escape, now: 0) == [.show(.menu)])
        #expect(setup.handle(.back, now: 0) == [.show(.menu)])
    }

    @Test("Ctrl+C in the name field copies through an effect")
    func copy() {
        var setup = SoloSetupModel(savedName: "Ann")
        _ = setup.handle(.focusName(true), now: 0)
        _ = setup.handle(.edit(.selectAll), now: 0)
        #expect(setup.handle(.edit(.copy), now: 0) == [.copyToClipboard("Ann")])
    }
}
