import NIOConcurrencyHelpers

/// What the routes learn about a request that the request log wants: who sent it and how
/// many records went up or down. One per request, shared by the middlewares and the route
/// (the request context is copied on its way in; this reference is not).
package final class RequestNote: Sendable {
    package struct Content: Hashable, Sendable {
        package var user: String?
        package var device: String?
        package var recordsUp = 0
        package var recordsDown = 0
        package var bytesUp = 0
    }

    private let box = NIOLockedValueBox(Content())

    package init() {}

    /// The caller, set once authenticated.
    package func identify(user: String, device: String) {
        box.withLockedValue { $0.user = user; $0.device = device }
    }

    /// Counts records sent by the client (`up`) or to it (`down`), and body bytes the route read.
    package func count(recordsUp: Int = 0, recordsDown: Int = 0, bytesUp: Int = 0) {
        box.withLockedValue { $0.recordsUp += recordsUp; $0.recordsDown += recordsDown; $0.bytesUp += bytesUp }
    }

    package var content: Content { box.withLockedValue { $0 } }
}
