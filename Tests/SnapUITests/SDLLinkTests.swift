#if GUI
import Testing
@testable import SnapUI

@Suite("SDL is linked when the GUI trait is on")
struct SDLLinkTests {
    @Test("the four SDL libraries report their versions")
    func versions() {
        let linked = SDLVersions.linked
        #expect(linked.hasPrefix("SDL 2."))
        #expect(!linked.contains("?"))
    }
}
#endif
