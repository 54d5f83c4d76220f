import SnapScreens
import Testing

@Suite("The main menu's model")
struct MenuModelTests {
    typealias Title = MenuModel.Title

    @Test("the title: a flick as each card lands, the buttons only once it settles")
    func title() {
        var menu = MenuModel(playerName: "Ann", now: 10)
        #expect(menu.isAnimating && !menu.isSettled)
        #expect(menu.handle(.choose(.join), now: 10.5).isEmpty, "a button before the title settled")
        let firstLanding = 10 + Title.firstCardAt + Title.flight * 0.8
        #expect(menu.update(now: firstLanding - 0.01).isEmpty)
        #expect(menu.update(now: firstLanding + 0.001) == [.play(.flick)])
        // A late frame: every card that landed meanwhile flicks once.
        #expect(menu.update(now: 10 + Title.end) == Array(repeating: .play(.flick), count: Title.cardCount - 1))
        #expect(menu.isSettled)
        #expect(menu.update(now: 10 + Title.end + 1).isEmpty)
        #expect(!menu.isAnimating)
        #expect(menu.handle(.choose(.join), now: 12) == [.show(.join)])
    }

    @Test("a click or key during the title skips it, silently; Esc quits even then")
    func skip() {
        var menu = MenuModel(playerName: "Ann", now: 0)
        #expect(menu.handle(.skipTitle, now: 0.3).isEmpty)
        #expect(menu.isSettled && !menu.isAnimating)
        #expect(menu.update(now: 0.4).isEmpty, "skipped cards land without a flick")
        #expect(menu.handle(.choose(.solo), now: 0.5) == [.show(.soloSetup)])
        var fresh = MenuModel(playerName: "Ann", now: 0)
        #expect(fresh.handle(.escape, now: 0.1) == [.quit])
    }

    @Test("each button's screen; Story opens under the player's name")
    func routes() {
        var menu = MenuModel(playerName: "Zoë", now: 0)
        _ = menu.handle(.skipTitle, now: 0)
        #expect(menu.handle(.choose(.story), now: 1) == [.show(.story(name: "Zoë"))])
        #expect(menu.handle(.choose(.statistics), now: 1) == [.show(.statistics)])
        #expect(menu.handle(.choose(.quit), now: 1) == [.quit])
        #expect(menu.footer == "Playing as Zoë")
    }

    @Test("Host Game: one game made at a time, the menu animates meanwhile; a refusal is said and the menu is back")
    func hosting() {
        var menu = MenuModel(playerName: "Ann", now: 0)
        _ = menu.handle(.skipTitle, now: 0)
        #expect(menu.handle(.choose(.host), now: 1) == [.startHosting(name: "Ann")])
        #expect(menu.isHosting && menu.isAnimating && menu.footer == "Starting your game")
        #expect(menu.handle(.choose(.host), now: 1.1).isEmpty, "a second click while the first game is made")
        #expect(menu.handle(.choose(.join), now: 1.2).isEmpty, "the game being made is the one")
        let refused = Alert("Cannot start the game", "The name is in use.")
        #expect(menu.handle(.hostingFailed(refused), now: 2).isEmpty)
        #expect(!menu.isHosting && menu.alert == refused)
        #expect(menu.handle(.choose(.join), now: 2.1).isEmpty, "the alert takes input first")
        #expect(menu.handle(.escape, now: 2.2).isEmpty)
        _ = menu.handle(.dismissAlert, now: 2.3)
        #expect(menu.alert == nil)
        #expect(menu.handle(.choose(.host), now: 3) == [.startHosting(name: "Ann")])
        _ = menu.handle(.hosted, now: 4)
        #expect(!menu.isHosting)
    }

    @Test("a notice (why the player landed here) shows at once over a settled menu")
    func notice() {
        let notice = Alert("The game ended", "Ann's game ended: the host left.")
        var menu = MenuModel(playerName: "Bob", now: 5, notice: notice)
        #expect(menu.alert == notice && menu.isSettled && !menu.isAnimating)
        #expect(menu.update(now: 5.1).isEmpty)
        _ = menu.handle(.dismissAlert, now: 6)
        #expect(menu.handle(.choose(.join), now: 6) == [.show(.join)])
    }
}
