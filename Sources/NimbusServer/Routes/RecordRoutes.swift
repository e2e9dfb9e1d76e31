import Hummingbird
import NimbusWire

/// `POST …/zones/{zone}/records/modify` and `POST …/zones/{zone}/records/lookup`.
struct RecordRoutes {
    let services: ServerServices

    func register(on group: RouterGroup<NimbusRequestContext>) {
        group.post("zones/:zone/records/modify") { request, context in
            let key = try await context.accessibleZoneKey(services, request: request, intent: .write)
            let principal = try context.requirePrincipal()
            let (decoded, bodyBytes) = try await JSONResponse.decodeCounting(
                ModifyRecordsRequest.self, from: request, limit: ModifyRecordsRequest.maximumBodyBytes)
            let body = decoded.normalizingNames()
            context.note.count(recordsUp: body.saves.count + body.deletions.count, bytesUp: bodyBytes)
            try ModifyValidator.validate(
                body, bodyBytes: bodyBytes,
                latestStamp: ModifyValidator.latestStamp(now: services.clock.now(), skew: services.configuration.maximumClockSkew))
            try await checkAssets(body, container: key.database.container, principal: principal)
            let outcome = try await services.storage.modifyRecords(
                key, body,
                context: ModifyContext(
                    device: principal.deviceID, now: services.clock.now(),
                    quotaUserID: services.quotaUser(for: key.database, writer: principal),
                    defaultQuotaBytes: services.configuration.defaultQuotaBytes))
            let failures = outcome.plan.failures
            var response = ModifyRecordsResponse(results: outcome.plan.results, changeToken: outcome.zone.changeToken)
            if !failures.isEmpty {
                let applied = body.atomic ? "Nothing was applied (atomic batch)." : "The other items were applied."
                response.error = WireError(
                    .partialFailure, "\(failures.filter { $0.code != .batchRequestFailed }.count) item(s) failed. \(applied)",
                    itemErrors: failures)
            }
            return try JSONResponse.make(response, status: failures.isEmpty ? .ok : .init(code: 207))
        }
        group.post("zones/:zone/records/lookup") { request, context in
            let key = try await context.accessibleZoneKey(services, request: request, intent: .read)
            var body = try await JSONResponse.decode(LookupRecordsRequest.self, from: request, limit: 256 * 1024)
            body.recordNames = body.recordNames.map(\.nfc)
            if body.recordNames.count > LookupRecordsRequest.maximumNames {
                throw WireError(.limitExceeded, "A lookup names at most \(LookupRecordsRequest.maximumNames) records.")
            }
            for name in body.recordNames {
                if let problem = NameRules.problem(with: name) {
                    throw WireError(.invalidArguments, "The record name '\(name)' \(problem).")
                }
            }
            let rows = try await services.storage.lookupRecords(key, names: body.recordNames)
            let results = body.recordNames.map { name -> LookupResult in
                guard let row = rows[name] else {
                    return LookupResult(recordName: name, error: ItemError(name: name, code: .unknownItem, message: "No record named '\(name)'."))
                }
                if row.isTombstone {
                    return LookupResult(recordName: name, error: ItemError(name: name, code: .unknownItem, message: "The record '\(name)' was deleted."))
                }
                return LookupResult(recordName: name, record: row.wire)
            }
            return try JSONResponse.make(LookupRecordsResponse(results: results))
        }
    }

    /// A record may refer only to assets its writer may read, so that knowing a checksum
    /// does not grant access to someone else's asset, and only with the stored asset's size.
    private func checkAssets(_ request: ModifyRecordsRequest, container: String, principal: Principal) async throws {
        var sizes: [String: Set<Int64>] = [:]
        for record in request.saves {
            for asset in record.assetReferences { sizes[asset.checksum, default: []].insert(asset.size) }
        }
        var missing: [ItemError] = []
        var wrongSize: [ItemError] = []
        for checksum in sizes.keys.sorted() {
            if try await !services.storage.mayReadAsset(container: container, checksum: checksum, userID: principal.userID) {
                missing.append(ItemError(name: checksum, code: .unknownItem, message: "Upload the asset \(checksum) before referring to it."))
                continue
            }
            guard let stored = try await services.assets.size(of: checksum) else {
                missing.append(ItemError(name: checksum, code: .unknownItem, message: "The asset \(checksum) is not stored on this server; upload it again."))
                continue
            }
            for claimed in sizes[checksum, default: []].sorted() where claimed != stored {
                wrongSize.append(ItemError(
                    name: checksum, code: .invalidArguments,
                    message: "The asset \(checksum) is \(stored) bytes, not \(claimed); refer to it with its uploaded size."))
            }
        }
        if !missing.isEmpty {
            throw WireError(.unknownItem, "\(missing.count) referenced asset(s) were not uploaded by this user.", itemErrors: missing)
        }
        if !wrongSize.isEmpty {
            throw WireError(.invalidArguments, "\(wrongSize.count) asset reference(s) give the wrong size.", itemErrors: wrongSize)
        }
    }
}
