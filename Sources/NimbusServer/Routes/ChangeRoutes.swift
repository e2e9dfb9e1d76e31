import Hummingbird
import NimbusWire

/// `POST …/zones/{zone}/changes` and `POST …/databases/{database}/changes`.
struct ChangeRoutes {
    let services: ServerServices

    func register(on group: RouterGroup<NimbusRequestContext>) {
        group.post("zones/:zone/changes") { request, context in
            let key = try await context.accessibleZoneKey(services, request: request, intent: .read)
            let body = try await JSONResponse.decode(FetchZoneChangesRequest.self, from: request, limit: 64 * 1024)
            let limit = try pageSize(body.limit, default: 500, maximum: FetchZoneChangesRequest.maximumLimit)
            var afterSeq: Int64 = 0
            var expectedZone: Int64?
            if let token = body.since {
                let decoded = try ChangeTokenCodec.decodeZone(token)
                afterSeq = decoded.seq
                expectedZone = decoded.zoneIncarnation
            }
            let page = try await services.storage.zoneChanges(
                key, afterSeq: afterSeq, expectedIncarnation: expectedZone, limit: limit,
                maximumBytes: services.configuration.maximumChangePageBytes)
            if let expectedZone {
                guard expectedZone == page.zone.incarnation, afterSeq <= page.zone.seq else {
                    throw WireError(.changeTokenExpired, "The change token belongs to an earlier incarnation of zone '\(key.zoneName)'. Refetch the zone from the start.")
                }
                guard afterSeq >= page.zone.purgedSeq else {
                    throw WireError(.changeTokenExpired, "The change token is older than the server's tombstone horizon. Refetch the zone from the start.")
                }
            }
            let seq = page.moreComing ? (page.records.last?.seq ?? afterSeq) : page.zone.seq
            context.note.count(recordsDown: page.records.count)
            return try JSONResponse.make(FetchZoneChangesResponse(
                records: page.records.filter { !$0.isTombstone }.map(\.wire),
                deletions: page.records.compactMap { row in row.deletion.map { DeletedRecord(recordName: row.recordName, stamp: $0) } },
                changeToken: ChangeTokenCodec.zoneToken(zoneIncarnation: page.zone.incarnation, seq: seq),
                moreComing: page.moreComing))
        }
        group.post("changes") { request, context in
            let database = try context.databaseKey(services, request: request)
            let body = try await JSONResponse.decode(FetchDatabaseChangesRequest.self, from: request, limit: 64 * 1024)
            let limit = try pageSize(body.limit, default: 500, maximum: 2000)
            let afterSeq = try body.since.map { token throws(WireError) in try ChangeTokenCodec.decodeDatabase(token) } ?? 0
            let page = try await services.storage.databaseChanges(database, afterSeq: afterSeq, limit: limit)
            guard afterSeq <= page.currentSeq else {
                throw WireError(.changeTokenExpired, "The change token is ahead of this server's database (was it restored from a backup?). Refetch the database's zones from the start.")
            }
            guard body.since == nil || afterSeq >= page.purgedSeq else {
                throw WireError(.changeTokenExpired, "The change token is older than the server's tombstone horizon. Refetch the database's zones from the start.")
            }
            return try JSONResponse.make(FetchDatabaseChangesResponse(
                changedZones: page.zones.filter { !$0.deleted }.map { ZoneID(zoneName: $0.zoneName, ownerName: $0.ownerName) },
                deletedZones: page.zones.filter(\.deleted).map { ZoneID(zoneName: $0.zoneName, ownerName: $0.ownerName) },
                changeToken: ChangeTokenCodec.databaseToken(seq: page.databaseSeq),
                moreComing: page.moreComing))
        }
    }

    private func pageSize(_ requested: Int?, default value: Int, maximum: Int) throws(WireError) -> Int {
        guard let requested else { return value }
        guard requested > 0 else { throw WireError(.invalidArguments, "The page limit must be positive.") }
        return min(requested, maximum)
    }
}
