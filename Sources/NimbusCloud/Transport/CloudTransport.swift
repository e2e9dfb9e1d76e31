import Foundation
import NimbusWire

/// How mirroring talks to a sync server: zones, record batches, changes, assets and push.
///
/// Nothing above a transport knows HTTP. ``HTTPTransport`` talks to `nimbus serve`; tests may
/// wrap it to inject faults, and a shared-folder transport fits here later.
///
/// Every method throws ``CloudError``.
public protocol CloudTransport: Sendable {
    /// Checks that the server is reachable and speaks this protocol version.
    func checkServer() async throws
    /// Who the transport's token belongs to.
    func account() async throws -> AccountResponse
    /// Creates a zone if it does not exist.
    func createZone(_ zone: ZoneID) async throws
    /// Deletes a zone and every record in it (every device drops its replica).
    func deleteZone(_ zone: ZoneID) async throws
    /// Saves and deletes records in one batch.
    func modify(_ request: ModifyRecordsRequest, in zone: ZoneID) async throws -> ModifyRecordsResponse
    /// A page of the zone's changes since a token.
    func fetchChanges(_ request: FetchZoneChangesRequest, in zone: ZoneID) async throws -> FetchZoneChangesResponse
    /// Records by name.
    func lookup(_ names: [String], in zone: ZoneID) async throws -> [LookupResult]
    /// Uploads bytes as an asset (content-addressed) and returns its reference.
    func uploadAsset(_ data: Data) async throws -> AssetReference
    /// Downloads an asset's bytes.
    func downloadAsset(_ asset: AssetReference) async throws -> Data
    /// Downloads an asset into a file, streamed (never whole in memory), its checksum checked.
    func downloadAsset(_ asset: AssetReference, to file: URL) async throws
    /// Push messages for the database, until the stream ends (the socket closed or failed).
    func pushMessages() -> AsyncThrowingStream<PushMessage, any Error>
}

extension CloudTransport {
    /// Downloads the asset's bytes and writes them to `file` (transports that can stream
    /// implement this themselves).
    public func downloadAsset(_ asset: AssetReference, to file: URL) async throws {
        let data = try await downloadAsset(asset)
        do { try data.write(to: file) } catch {
            throw CloudError(.server, "the asset \(asset.checksum) could not be written to \(file.path): \(error)")
        }
    }
}
