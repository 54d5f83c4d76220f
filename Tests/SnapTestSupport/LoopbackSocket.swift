#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A raw TCP client of 127.0.0.1:`port`, for tests that send whatever bytes they want and
/// read what comes back; its reads give up after `readTimeout` seconds without a byte.
/// Nil when it cannot connect (nothing is left open then).
public func loopbackSocket(port: Int, readTimeout: Int = 10) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(fd)
        return nil
    }
    var timeout = timeval(tv_sec: readTimeout, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    return fd
}

/// Everything `fd` reads until the other side closes it (or resets it, or its read timeout passes).
public func readUntilClosed(_ fd: Int32) -> [UInt8] {
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(fd, &buffer, buffer.count)
        if count <= 0 { return received }
        received += buffer[0..<count]
    }
}
