import Foundation
import NimbusWire

/// The next page of zone changes, asked for while the importer applies the page before it:
/// the server's work and the transfer overlap with the device's (pipelining).
///
/// Pages are still applied one at a time and in order, each with its token in its own
/// transaction: a prefetched page is used only when the token it was asked with is the
/// one stored after the previous page (a replica reset or an expired token discards it),
/// and one that failed reports its error where the importer would have fetched it.
struct PagePrefetch: Sendable {
    /// The token the page was asked for with.
    let since: ChangeToken
    let task: Task<FetchZoneChangesResponse, any Error>

    init(since: ChangeToken, limit: Int, mirror: StoreMirror, zone: ZoneID) {
        self.since = since
        let transport = mirror.transport
        task = Task { try await transport.fetchChanges(FetchZoneChangesRequest(since: since, limit: limit), in: zone) }
    }

    func cancel() { task.cancel() }

    /// The page after `token`: the prefetched one when it was asked with that token, else
    /// fetched now (a prefetch that no longer fits is cancelled).
    static func page(since token: ChangeToken?, prefetched: PagePrefetch?, limit: Int, mirror: StoreMirror, zone: ZoneID) async throws -> FetchZoneChangesResponse {
        if let prefetched {
            if prefetched.since == token { return try await prefetched.task.value }
            prefetched.cancel()
        }
        return try await mirror.transport.fetchChanges(FetchZoneChangesRequest(since: token, limit: limit), in: zone)
    }
}
