#if canImport(Glibc)
import Glibc
#endif

/// Where `snap-bench net`'s pinned figures run: the measuring thread on one CPU, the side
/// that answers (the host's event loop, or the echo thread) on another.
///
/// Unpinned, a ping-pong's two threads may share a CPU and hand over with a context switch
/// (8 µs p50 here) or sit on two and wake each other across them (29 µs): the baseline
/// flips between the two from run to run, while a host's loop and its clients keep to
/// different CPUs. Pinned, both figures are taken with the same placement.
struct CPUPlacement: Sendable {
    let measuring: Int32
    let answering: Int32

    // glibc's sched_[gs]etaffinity, looked up by name: Swift's Glibc module leaves out what
    // needs _GNU_SOURCE, and a C target for two calls would be a module of its own.
    private typealias Affinity = @convention(c) (pid_t, Int, UnsafeMutableRawPointer) -> Int32
    private static let getAffinity = lookUp("sched_getaffinity")
    private static let setAffinity = lookUp("sched_setaffinity")

    private static func lookUp(_ name: String) -> Affinity? {
        dlsym(dlopen(nil, RTLD_NOW), name).map { unsafeBitCast($0, to: Affinity.self) }
    }

    private static func sched_getaffinity(_ pid: pid_t, _ size: Int, _ set: inout cpu_set_t) -> Int32 {
        guard let getAffinity else { return -1 }
        return withUnsafeMutableBytes(of: &set) { getAffinity(pid, size, $0.baseAddress!) }
    }

    @discardableResult
    private static func sched_setaffinity(_ pid: pid_t, _ size: Int, _ set: inout cpu_set_t) -> Int32 {
        guard let setAffinity else { return -1 }
        return withUnsafeMutableBytes(of: &set) { setAffinity(pid, size, $0.baseAddress!) }
    }

    /// The first two CPUs this process may run on; nil with fewer than two.
    static func twoCPUs() -> CPUPlacement? {
        var allowed = cpu_set_t()
        guard sched_getaffinity(0, MemoryLayout<cpu_set_t>.size, &allowed) == 0 else { return nil }
        let cpus = withUnsafeBytes(of: allowed) { bytes in
            (0..<Int32(bytes.count * 8)).filter { bytes[Int($0 / 8)] & (1 << ($0 % 8)) != 0 }
        }
        guard cpus.count >= 2 else { return nil }
        return CPUPlacement(measuring: cpus[0], answering: cpus[1])
    }

    /// Pins the calling thread to `cpu`; returns the set it may run on before, to restore.
    @discardableResult
    static func pinCurrentThread(to cpu: Int32) -> cpu_set_t {
        var before = cpu_set_t()
        _ = sched_getaffinity(0, MemoryLayout<cpu_set_t>.size, &before)  // on failure `before` is empty and restoring it fails too: harmless
        var only = cpu_set_t()
        withUnsafeMutableBytes(of: &only) { $0[Int(cpu / 8)] |= 1 << (cpu % 8) }
        sched_setaffinity(0, MemoryLayout<cpu_set_t>.size, &only)
        return before
    }

    static func restoreCurrentThread(_ set: cpu_set_t) {
        var set = set
        sched_setaffinity(0, MemoryLayout<cpu_set_t>.size, &set)
    }
}
