#if GUI
import Testing

/// The suites whose windows and hosts live in the test process: one at a time, because
/// they share the process's hosted games (`GameClient.endHostedGames` ends them all) and
/// its one SDL video subsystem.
@Suite("Windows and hosts in the test process", .serialized)
enum InProcessWindows {}
#endif
