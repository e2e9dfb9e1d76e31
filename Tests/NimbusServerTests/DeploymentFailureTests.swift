import Foundation
import NIOConcurrencyHelpers
@testable import NimbusServer
import NimbusWire
import Testing

/// The reference deployment of `deploy/` under a bounded write load from many devices while
/// its parts are killed with `kill -9`: a server process, the PostgreSQL primary (then
/// `deploy/failover.sh`), the standby, and a server in the middle of requests. Afterwards
/// every acknowledged write is present exactly once and every device reads the same zone.
@Suite("Deployment: failures under load", .serialized, .enabled(if: Deployment.enabled))
struct DeploymentFailureTests {
    /// One device's writes: batches of records named `<device>-<batch>-<k>`, retried until acknowledged.
    struct Load: Sendable {
        let acknowledged = NIOLockedValueBox<[String: [String: Int64]]>([:])  // user -> record name -> n
        let stopped = NIOLockedValueBox(false)
        let retries = NIOLockedValueBox(0)

        func run(_ client: TestClient, user: String, device: String, batches: Int) async {
            for batch in 0..<batches {
                let names = (0..<4).map { "\(device)-\(batch)-\($0)" }
                let records = names.map { Make.record($0, ["n": .int64(Int64(batch))], device: device) }
                while true {
                    if let reply = try? await client.modify("z", ModifyRecordsRequest(saves: records, savePolicy: .changedKeys)),
                        reply.status == 200
                    {
                        acknowledged.withLockedValue { for name in names { $0[user, default: [:]][name] = Int64(batch) } }
                        break
                    }
                    retries.withLockedValue { $0 += 1 }
                    if stopped.withLockedValue({ $0 }) { return }
                    try? await Task.sleep(for: .milliseconds(200))
                }
                if stopped.withLockedValue({ $0 }) { return }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    @Test("kill -9 of a server, the primary (then failover), the standby and a busy server: every acknowledged write is there once, devices converge")
    func failuresUnderLoad() async throws {
        let deployment = try Deployment.start(syncGraceSeconds: 2)
        defer { deployment.stop() }
        let users = (0..<4).map { "user\($0)" }
        let devices = try await deployment.tokens(users: users, devicesPerUser: 3)
        let clients = devices.map { (user: $0.user, device: $0.device, client: TestClient(baseURL: deployment.httpURL, token: $0.token, container: "app")) }
        for user in users {
            _ = try await #require(clients.first { $0.user == user }).client.createZone("z")
        }
        let load = Load()
        let writers = Task {
            await withTaskGroup(of: Void.self) { group in
                for device in clients {
                    group.addTask { await load.run(device.client, user: device.user, device: device.device, batches: 400) }
                }
            }
        }
        func acknowledgedCount() -> Int { load.acknowledged.withLockedValue { $0.values.reduce(0) { $0 + $1.count } } }
        func waitForProgress(_ label: String) async throws {
            let start = acknowledgedCount()
            for _ in 0..<600 where acknowledgedCount() < start + 40 { try await Task.sleep(for: .milliseconds(100)) }
            #expect(acknowledgedCount() >= start + 40, "writes did not resume after \(label)")
        }
        try await waitForProgress("start")

        // A server process dies; HAProxy sends its devices elsewhere; it comes back.
        let ports = deployment.serverPorts
        try deployment.killServer(port: ports[0])
        try await waitForProgress("kill -9 of a server")
        try deployment.script("restart-server.sh", [String(ports[0])])

        // A device of user0 listens for push through HAProxy across the failover.
        let pushDevice = try #require(clients.first { $0.user == "user0" })
        let push = PushListener.connect(
            url: deployment.httpURL.replacingOccurrences(of: "http://", with: "ws://") + "/v1/containers/app/databases/private/push",
            token: try #require(pushDevice.client.token))
        defer { push.close() }
        #expect(await push.next(within: .seconds(10))?.kind == .hello)

        // The primary's machine goes; the standby is promoted.
        let oldPrimary = try deployment.primary
        try deployment.killNode(oldPrimary)
        try await Task.sleep(for: .seconds(1))
        try deployment.script("failover.sh")
        #expect(try deployment.primary != oldPrimary)
        try await waitForProgress("failover")
        // Push goes on: a change written after the failover reaches the device that stayed
        // connected (its server's listener reconnected to the new primary).
        let marker = try await pushDevice.client.save("z", [Make.record("after-failover", ["n": .int64(0)])])
        let markerSeq = try ChangeTokenCodec.decodeZone(marker.changeToken).seq
        var heard = false
        for _ in 0..<2000 {
            guard let message = await push.next(within: .seconds(30)) else { break }
            if message.kind == .zoneChanged, let token = message.zoneChangeToken, try ChangeTokenCodec.decodeZone(token).seq >= markerSeq {
                heard = true
                break
            }
        }
        #expect(heard, "the device connected through the failover heard no push of a later change")

        // The old primary comes back as the standby, then the standby's machine goes: writes
        // pause for the watchdog's grace period, then go on without it.
        try deployment.script("add-standby.sh", [oldPrimary])
        try await waitForProgress("the standby's return")
        try deployment.killNode(oldPrimary)
        try await waitForProgress("kill -9 of the standby")

        // A server dies in the middle of the steady stream of requests.
        try deployment.killServer(port: ports[1])
        try await waitForProgress("kill -9 of a busy server")

        load.stopped.withLockedValue { $0 = true }
        await writers.value

        // Every acknowledged write is present exactly once, with its value, and every device
        // of a user reads the same zone.
        let acknowledged = load.acknowledged.withLockedValue { $0 }
        #expect(acknowledgedCount() > 200)
        print("deployment under failures: \(acknowledgedCount()) records acknowledged, \(load.retries.withLockedValue { $0 }) batches retried")
        for user in users {
            var views: [[String: String]] = []
            for device in clients where device.user == user {
                var names: [String] = []
                var tags: [String: String] = [:]
                var values: [String: FieldValue?] = [:]
                var token: ChangeToken?
                repeat {
                    let page = try await device.client.fetchChanges("z", since: token)
                    for record in page.records {
                        names.append(record.recordName)
                        tags[record.recordName] = record.changeTag
                        values[record.recordName] = record.fields["n"]?.value
                    }
                    token = page.changeToken
                    if !page.moreComing { break }
                } while true
                #expect(names.count == Set(names).count, "a record came twice in \(device.device)'s fetch")
                for (name, n) in acknowledged[user] ?? [:] {
                    let value: FieldValue? = values[name] ?? nil
                    #expect(value == .int64(n), "\(device.device) lacks the acknowledged \(name)")
                }
                views.append(tags)
            }
            #expect(Set(views).count == 1, "\(user)'s devices read different zones")
        }
    }
}
