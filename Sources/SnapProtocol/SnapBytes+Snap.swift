// Snap!'s frames, fields and names: SnapBytes' readers throwing `ProtocolError`. A module
// that names SnapBytes' types imports SnapBytes itself (nothing is re-exported).
import SnapBytes

extension FrameDecoder {
    /// The next complete frame, nil if more bytes are needed, or Snap!'s error if the bytes
    /// buffered so far cannot be the start of a valid frame.
    public mutating func nextFrame() throws(ProtocolError) -> Frame? {
        try nextFrame(failing: ProtocolError.self)
    }
}

extension SequenceChecker {
    public mutating func check(_ sequence: UInt32) throws(ProtocolError) {
        try check(sequence, failing: ProtocolError.self)
    }
}

extension PlayerName {
    /// Returns `name` unchanged if it is a valid player name.
    @discardableResult
    public static func validate(_ name: String) throws(ProtocolError) -> String {
        try validate(name, failing: ProtocolError.self)
    }
}

extension CloseMessage {
    /// Returns `text` unchanged if it may be sent in a `closing` message.
    @discardableResult
    public static func validate(_ text: String) throws(ProtocolError) -> String {
        try validate(text, failing: ProtocolError.self)
    }
}
