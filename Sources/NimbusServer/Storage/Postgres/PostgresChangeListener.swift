import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle

/// Listens on the `nimbus_changes` channel and delivers every committed change, from any
/// server process, to the devices connected to this one. Reconnects after a lost connection.
struct PostgresChangeListener: Service {
    let storage: PostgresStorage

    func run() async throws {
        let logger = storage.logger
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await cancelWhenGracefulShutdown {
                    try await storage.client.withConnection { connection in
                        try await connection.listen(on: PostgresStorage.channel) { notifications in
                            for try await notification in notifications {
                                guard let event = try? JSONDecoder().decode(ChangeEvent.self, from: Data(notification.payload.utf8))
                                else { continue }
                                storage.changeFeed.deliver(event)
                            }
                        }
                    }
                }
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { return }
                logger.warning("postgres listener lost its connection; reconnecting", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
    }
}
