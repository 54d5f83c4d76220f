import NIOCore
import SnapProtocol
import SnapSession

/// The host's own players in this process, each on a `GameLink`: what the session sends one
/// is handed to its link as it is, never encoded, and nothing it is sent waits in a buffer
/// (no back-pressure). Touched on the host's loop only.
final class LocalLinks {
    private var links: [ConnectionID: GameLink] = [:]

    func attach(_ link: GameLink, as id: ConnectionID) { links[id] = link }

    /// Hands `message` to `id`'s link; false if `id` is not a local link (any more).
    func deliver(_ message: HostMessage, to id: ConnectionID) -> Bool {
        guard let link = links[id] else { return false }
        link.deliverFromHost(message)
        return true
    }

    /// Forgets `id`'s link (hung up, or it left); false if it was not one.
    @discardableResult
    func detach(_ id: ConnectionID) -> Bool { links.removeValue(forKey: id) != nil }
}

extension HostServer {
    /// The host's own player: an in-process link through the same session code, with
    /// the same validation and judging as any connection (its round trip is zero).
    /// Returns at once: the link is attached by the loop's next task, so anything sent on
    /// it afterwards, from any thread, reaches the loop after the attachment.
    public func connectLocal() -> GameLink {
        let attachment = LocalAttachment()
        let link = GameLink(sender: { [weak self] message in
            guard let server = self else { return }
            server.loop.execute { if let id = attachment.id { server.handleLocal(.message(id, message)) } }
        }, closer: { [weak self] in
            guard let server = self else { return }
            server.loop.execute { if let id = attachment.id { server.handleLocal(.disconnected(id)) } }
        })
        loop.execute { attachment.id = self.attachLocal(link) }
        return link
    }
}

/// The host's own player's connection, once the loop has attached it.
private final class LocalAttachment: @unchecked Sendable {  // written and read on the host's loop only
    var id: ConnectionID?
}
