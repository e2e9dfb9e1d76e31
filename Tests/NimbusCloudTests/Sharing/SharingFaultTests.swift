import Foundation
import Nimbus
import NimbusCloud
import NimbusTesting
import NimbusWire
import Testing

@Suite("Sharing under network faults", .serialized)
struct SharingFaultTests {
    /// A seeded random source for the edits.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test("owner and a read-write participant on two devices edit a shared list through a faulty network; a read-only participant reads; all converge",
          arguments: [UInt64(11), 12, 13])
    func converge(seed: UInt64) async throws {
        let server = try await SyncServer(user: "ada", otherUsers: ["grace", "alan"])
        defer { server.stop() }
        let proxy = try FaultProxy(upstreamPorts: [server.port], seed: seed)
        defer { proxy.stop() }
        let ada = try SharingModel.Device(url: proxy.url, token: server.tokens[0])
        let grace = try SharingModel.Device(url: proxy.url, token: server.otherTokens["grace"]!)
        let graceLaptop = try SharingModel.Device(url: proxy.url, token: server.otherTokens["grace"]!)
        let alan = try SharingModel.Device(url: proxy.url, token: server.otherTokens["alan"]!)
        let listID = try await ada.makeList("Groceries", items: ["milk", "eggs"])
        var share = try await ada.container.share(objectIDs: [listID]).share
        share.participants = [ShareParticipant(userName: "grace", permission: .readWrite), ShareParticipant(userName: "alan", permission: .readOnly)]
        share = try await ada.container.persistUpdatedShare(share, in: ada.privateStore)
        let url = try #require(share.url)
        for device in [grace, graceLaptop, alan] {
            try await device.container.acceptShareInvitations(from: [url], into: device.sharedStore)
        }

        proxy.faultsEnabled = true
        var random = Seeded(state: seed)
        let writers = [ada, grace, graceLaptop]
        for round in 0..<6 {
            for (index, device) in writers.enumerated() where Bool.random(using: &random) {
                let action = Int.random(in: 0..<3, using: &random)
                let title = "r\(round)-d\(index)"
                let context = device.container.newBackgroundContext()
                try await context.perform {
                    let list = try device.list("Groceries", in: context)
                    let items = (list.value(forKey: "items") as? Set<ManagedObject> ?? []).sorted { $0.objectID < $1.objectID }
                    switch action {
                    case 0:
                        let item = try context.insertNewObject(forEntityName: "Item")
                        item.setValue(title, forKey: "title")
                        item.setValue(list, forKey: "list")
                    case 1: items.first?.setValue(title, forKey: "title")
                    default: if let last = items.last, items.count > 1 { context.delete(last) }
                    }
                    try context.save()
                }
            }
            for device in writers + [alan] where Bool.random(using: &random) { _ = try? await device.container.syncNow() }
        }

        proxy.faultsEnabled = false
        for _ in 0..<3 {
            for device in writers + [alan] { try await device.container.syncNow() }
        }
        let expected = try #require(try await ada.items(of: "Groceries"))
        for device in [grace, graceLaptop, alan] {
            #expect(try await device.items(of: "Groceries") == expected, "seed \(seed): faults \(proxy.injectedFaults)")
        }
        #expect(try await ada.count("List") == 1)
        #expect(try await alan.count("List") == 1)
    }
}
