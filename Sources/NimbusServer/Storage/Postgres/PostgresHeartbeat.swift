import ServiceLifecycle

/// Sends this process's heartbeat on the change channel every interval, through the pool,
/// so that ``PostgresChangeListener`` can tell a listening connection that stopped hearing
/// from a quiet database (see ``ListenerLiveness``).
///
/// Each heartbeat is one `pg_notify` statement; a heartbeat PostgreSQL refuses (it is down)
/// is not counted. Every process hears every other process's heartbeats and ignores them;
/// no heartbeat reaches a device.
struct PostgresHeartbeat: Service {
    let storage: PostgresStorage

    func run() async throws {
        let liveness = storage.liveness
        let interval = storage.heartbeatInterval
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                let seq = liveness.nextHeartbeat()
                let payload = HeartbeatPayload.make(instance: liveness.instance, seq: seq)
                do {
                    try await storage.query("SELECT pg_notify(\(PostgresStorage.channel), \(payload))", logger: storage.logger)
                    liveness.accepted(seq, at: .now)
                } catch {
                    storage.logger.debug("postgres heartbeat not sent", metadata: ["error": "\(error)"])
                }
            }
        }
    }
}
