extension Duration {
    /// For NIO's `TimeAmount` and deadlines, which count nanoseconds.
    package var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}
