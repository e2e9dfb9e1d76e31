import Foundation
import Logging
import ServiceLifecycle

/// Periodically purges tombstones (records', share memberships') older than the horizon and
/// collects unreferenced assets.
struct MaintenanceService: Service {
    let services: ServerServices
    let logger: Logger

    func run() async throws {
        let interval = services.configuration.maintenanceIntervalSeconds
        guard interval > 0 else {
            try? await gracefulShutdown()
            return
        }
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(interval)) }
            } catch {
                return
            }
            do {
                try await Self.runOnce(services)
            } catch {
                logger.warning("maintenance failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Purges old tombstones (records' and share memberships', with the same horizon) and
    /// unreferenced assets once.
    @discardableResult
    static func runOnce(_ services: ServerServices) async throws -> (tombstones: Int, memberships: Int, assets: Int) {
        let now = services.clock.now()
        let horizon = now - services.configuration.tombstoneHorizonSeconds * 1000
        let purged = try await services.storage.purgeTombstones(olderThan: horizon)
        let memberships = try await services.storage.purgeShareTombstones(olderThan: horizon)
        let orphans = try await services.storage.collectUnreferencedAssets(uploadedBefore: now - services.configuration.assetGraceSeconds * 1000)
        await services.assets.remove(orphans)
        return (purged, memberships, orphans.count)
    }
}
