import Foundation
import NimbusCloud
import NimbusWire
import Synchronization

/// The HTTP transport with faults injected on demand: errors before a request reaches the
/// server, answers lost after the server applied a request, batches refused over a size.
final class FaultyTransport: CloudTransport, Sendable {
    enum Fault: Sendable {
        /// The next modify fails with this error before reaching the server.
        case modifyFails(CloudError)
        /// The next modify reaches the server, and its answer is lost.
        case modifyAnswerLost
        /// The next fetch of changes fails with this error.
        case fetchFails(CloudError)
    }

    let base: HTTPTransport
    private let state = Mutex<(faults: [Fault], modifies: Int, largestBatch: Int, limit: Int?)>(([], 0, 0, nil))

    init(options: CloudContainerOptions, idleTimeoutSeconds: Int64? = nil) {
        var base = HTTPTransport(options: options)
        if let idleTimeoutSeconds { base.idleTimeout = .seconds(idleTimeoutSeconds) }
        self.base = base
    }

    /// Called as each fetch of changes or modify starts, before it reaches the server.
    private let observers = Mutex<(fetch: (@Sendable (FetchZoneChangesRequest) -> Void)?, modify: (@Sendable (ModifyRecordsRequest) -> Void)?)>((nil, nil))
    /// Modifies sent and not answered yet, and the most there ever were at once.
    private let modifiesInFlight = Mutex<(now: Int, most: Int)>((0, 0))

    func observeFetches(_ observer: @escaping @Sendable (FetchZoneChangesRequest) -> Void) { observers.withLock { $0.fetch = observer } }
    func observeModifies(_ observer: @escaping @Sendable (ModifyRecordsRequest) -> Void) { observers.withLock { $0.modify = observer } }
    var mostModifiesInFlight: Int { modifiesInFlight.withLock { $0.most } }

    func inject(_ faults: Fault...) { state.withLock { $0.faults += faults } }
    /// Batches of more items than this are refused with `limitExceeded`.
    func refuseBatches(over limit: Int?) { state.withLock { $0.limit = limit } }
    var modifyCount: Int { state.withLock { $0.modifies } }
    var largestAcceptedBatch: Int { state.withLock { $0.largestBatch } }

    private func next(_ matching: (Fault) -> Bool) -> Fault? {
        state.withLock { state in
            guard let index = state.faults.firstIndex(where: matching) else { return nil }
            return state.faults.remove(at: index)
        }
    }

    func checkServer() async throws { try await base.checkServer() }
    func account() async throws -> AccountResponse { try await base.account() }
    func createZone(_ zone: ZoneID) async throws { try await base.createZone(zone) }
    func deleteZone(_ zone: ZoneID) async throws { try await base.deleteZone(zone) }

    func modify(_ request: ModifyRecordsRequest, in zone: ZoneID) async throws -> ModifyRecordsResponse {
        modifiesInFlight.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
        defer { modifiesInFlight.withLock { $0.now -= 1 } }
        observers.withLock { $0.modify }?(request)
        let items = request.saves.count + request.deletions.count
        if let limit = state.withLock({ $0.limit }), items > limit {
            throw CloudError(.limitExceeded, "test: batches over \(limit) items are refused")
        }
        switch next({ if case .fetchFails = $0 { false } else { true } }) {
        case let .modifyFails(error)?: throw error
        case .modifyAnswerLost?:
            _ = try await base.modify(request, in: zone)
            throw CloudError(.network, "test: the answer was lost after the server applied the batch")
        default: break
        }
        let response = try await base.modify(request, in: zone)
        state.withLock { $0.modifies += 1; $0.largestBatch = max($0.largestBatch, items) }
        return response
    }

    func fetchChanges(_ request: FetchZoneChangesRequest, in zone: ZoneID) async throws -> FetchZoneChangesResponse {
        observers.withLock { $0.fetch }?(request)
        if case let .fetchFails(error)? = next({ if case .fetchFails = $0 { true } else { false } }) { throw error }
        return try await base.fetchChanges(request, in: zone)
    }

    func lookup(_ names: [String], in zone: ZoneID) async throws -> [LookupResult] { try await base.lookup(names, in: zone) }
    func uploadAsset(_ data: Data) async throws -> AssetReference { try await base.uploadAsset(data) }
    func downloadAsset(_ asset: AssetReference) async throws -> Data { try await base.downloadAsset(asset) }
    func downloadAsset(_ asset: AssetReference, to file: URL) async throws { try await base.downloadAsset(asset, to: file) }
    func pushMessages() -> AsyncThrowingStream<PushMessage, any Error> { base.pushMessages() }
}
