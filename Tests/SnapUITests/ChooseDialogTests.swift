#if GUI
import SnapEngine
import SnapNet
import SnapProtocol
import SnapTable
import Testing
@testable import SnapUI

/// The one dialog every screen uses, choosing among a few answers.
@Suite("A choose dialog")
struct ChooseDialogTests {
    @Test("a choose dialog: a click on an option picks it, Enter the first, Esc the way out, a click off them nothing")
    func chooseDialog() {
        var dialog = Dialog.choose("Take back a seat?", "Which?", options: ["A", "B", "C"], no: "Cancel")
        let second = dialog.options[1].frame.center
        #expect(dialog.handle(.press(second)) == nil)
        #expect(dialog.handle(.release(second)) == .option(1))
        #expect(dialog.handle(.press(dialog.options[0].frame.center)) == nil)
        #expect(dialog.handle(.release(dialog.options[2].frame.center)) == nil)
        #expect(dialog.handle(.key(.enter)) == .option(0))
        #expect(dialog.handle(.key(.escape)) == .no)
        let way = dialog.no!.frame.center
        #expect(dialog.handle(.press(way)) == nil)
        #expect(dialog.handle(.release(way)) == .no)
        // The buttons are stacked inside the box, none over another.
        let frames = dialog.options.map(\.frame) + [dialog.no!.frame]
        for (index, frame) in frames.enumerated() {
            #expect(dialog.frame.contains(Point(frame.x, frame.y)) && dialog.frame.contains(Point(frame.x + frame.width, frame.y + frame.height)))
            for other in frames[(index + 1)...] { #expect(frame.y + frame.height <= other.y) }
        }
    }
}
#endif
