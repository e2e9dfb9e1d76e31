extension SyncStorage {
    /// A backend without replicas has one answer whatever the token's incarnation.
    package func zoneChanges(
        _ zone: ZoneKey, afterSeq: Int64, expectedIncarnation: Int64?, limit: Int, maximumBytes: Int64
    ) async throws -> ZoneChangesPage {
        try await zoneChanges(zone, afterSeq: afterSeq, limit: limit, maximumBytes: maximumBytes)
    }
}
