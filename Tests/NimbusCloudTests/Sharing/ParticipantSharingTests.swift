import Foundation
import Nimbus
import NimbusCloud
import NimbusTesting
import NimbusWire
import Testing

@Suite("Sharing: participants, permissions, the shared store", .serialized)
struct ParticipantSharingTests {
    /// Ada (two devices), Grace (read-write, two devices) and Alan (read-only).
    struct People {
        let server: SyncServer
        let ada: SharingModel.Device
        let adaLaptop: SharingModel.Device
        let grace: SharingModel.Device
        let graceLaptop: SharingModel.Device
        let alan: SharingModel.Device
        let listID: ManagedObjectID
        var share: CloudShare

        init() async throws {
            server = try await SyncServer(user: "ada", otherUsers: ["grace", "alan"])
            ada = try SharingModel.Device(server, token: server.tokens[0])
            adaLaptop = try SharingModel.Device(server, token: server.tokens[1])
            grace = try SharingModel.Device(server, token: server.otherTokens["grace"]!)
            graceLaptop = try SharingModel.Device(server, token: server.otherTokens["grace"]!)
            alan = try SharingModel.Device(server, token: server.otherTokens["alan"]!)
            listID = try await ada.makeList("Groceries", items: ["milk", "eggs"])
            var share = try await ada.container.share(objectIDs: [listID]).share
            share.participants = [ShareParticipant(userName: "grace", permission: .readWrite),
                                  ShareParticipant(userName: "alan", permission: .readOnly)]
            self.share = try await ada.container.persistUpdatedShare(share, in: ada.privateStore)
        }

        func accept(_ device: SharingModel.Device) async throws {
            try await device.container.acceptShareInvitations(from: [try #require(share.url)], into: device.sharedStore)
        }

        /// Ada changes a participant's permission.
        mutating func setPermission(_ permission: SharePermission, of user: String) async throws {
            for index in share.participants.indices where share.participants[index].userName == user {
                share.participants[index].permission = permission
            }
            share = try await ada.container.persistUpdatedShare(share, in: ada.privateStore)
        }
    }

    @Test("invited participants see nothing until they accept; then the list is in their shared store")
    func acceptBringsTheZone() async throws {
        let people = try await People()
        defer { people.server.stop() }
        #expect(people.share.participants.map(\.state) == [.invited, .invited])
        #expect(people.share.url?.absoluteString.hasPrefix(people.server.url.absoluteString) == true)
        try await people.grace.container.syncNow()
        #expect(try await people.grace.items(of: "Groceries") == nil)
        try await people.accept(people.grace)
        #expect(try await people.grace.items(of: "Groceries") == ["eggs", "milk"])
        let context = people.grace.container.newBackgroundContext()
        let gracesList = try await context.perform { try people.grace.list("Groceries", in: context).objectID }
        #expect(gracesList.storeIdentifier == people.grace.sharedStore.identifier)
        #expect(people.grace.container.canUpdateRecord(forManagedObjectWith: gracesList))
        #expect(people.grace.container.isShared(gracesList))
        // Grace's other device finds the accepted share by itself.
        try await people.graceLaptop.container.syncNow()
        #expect(try await people.graceLaptop.items(of: "Groceries") == ["eggs", "milk"])
        // The owner sees who accepted.
        let shares = try await people.ada.container.fetchShares(in: people.ada.privateStore)
        let grace = shares.first?.participants.first { $0.userName == "grace" }
        #expect(grace?.state == .accepted)
    }

    @Test("a read-write participant's edits and new items reach the owner and the other participants")
    func readWriteEdits() async throws {
        let people = try await People()
        defer { people.server.stop() }
        try await people.accept(people.grace)
        try await people.accept(people.alan)
        let context = people.grace.container.newBackgroundContext()
        try await context.perform {
            let list = try people.grace.list("Groceries", in: context)
            let item = try context.insertNewObject(forEntityName: "Item")
            item.setValue("bread", forKey: "title")
            item.setValue(list, forKey: "list")
            try context.save()
            #expect(item.objectID.storeIdentifier == people.grace.sharedStore.identifier)
        }
        try await people.grace.container.syncNow()
        try await people.ada.container.syncNow()
        try await people.alan.container.syncNow()
        #expect(try await people.ada.items(of: "Groceries") == ["bread", "eggs", "milk"])
        #expect(try await people.alan.items(of: "Groceries") == ["bread", "eggs", "milk"])
        // The owner's edit goes back to the participants.
        let adaContext = people.ada.container.newBackgroundContext()
        try await adaContext.perform {
            try people.ada.list("Groceries", in: adaContext).setValue("Weekend groceries", forKey: "name")
            try adaContext.save()
        }
        try await people.ada.container.syncNow()
        try await people.grace.container.syncNow()
        #expect(try await people.grace.items(of: "Weekend groceries") == ["bread", "eggs", "milk"])
    }

    @Test("a read-only participant's edits are refused locally before they are sent, and nothing changes")
    func readOnlyRefusedLocally() async throws {
        let people = try await People()
        defer { people.server.stop() }
        try await people.accept(people.alan)
        let context = people.alan.container.newBackgroundContext()
        let listID = try await context.perform { try people.alan.list("Groceries", in: context).objectID }
        #expect(!people.alan.container.canUpdateRecord(forManagedObjectWith: listID))
        #expect(!people.alan.container.canDeleteRecord(forManagedObjectWith: listID))
        let error = await #expect(throws: NimbusError.self) {
            try await context.perform {
                try context.existingObject(with: listID).setValue("mine now", forKey: "name")
                try context.save()
            }
        }
        #expect(error?.code == .readOnlyStore)
        await #expect(throws: NimbusError.self) {
            try await context.perform {
                let item = try context.insertNewObject(forEntityName: "Item")
                item.setValue("candy", forKey: "title")
                item.setValue(try context.existingObject(with: listID), forKey: "list")
                try context.save()
            }
        }
        try await people.alan.container.syncNow()
        try await people.ada.container.syncNow()
        #expect(try await people.ada.items(of: "Groceries") == ["eggs", "milk"])
        #expect(try await people.alan.items(of: "Groceries") == ["eggs", "milk"])
    }

    @Test("an edit that reaches the server after the permission dropped to read-only is refused, and the server's version comes back")
    func permissionDroppedWhileOffline() async throws {
        var people = try await People()
        defer { people.server.stop() }
        try await people.accept(people.grace)
        let context = people.grace.container.newBackgroundContext()
        let grace = people.grace
        try await context.perform {
            try grace.list("Groceries", in: context).setValue("Grace's list", forKey: "name")
            try context.save()
        }
        // Ada makes Grace read-only before Grace's edit goes out.
        try await people.setPermission(.readOnly, of: "grace")
        let events = people.grace.container.events
        let refusal = Task {
            for await event in events where event.kind == .sharing && event.error?.code == .permissionFailure { return true }
            return false
        }
        try? await people.grace.container.syncNow()
        #expect(try await people.grace.items(of: "Groceries") == ["eggs", "milk"])
        #expect(try await people.grace.items(of: "Grace's list") == nil)
        try await people.ada.container.syncNow()
        #expect(try await people.ada.items(of: "Groceries") == ["eggs", "milk"])
        try await Task.sleep(for: .milliseconds(200))
        refusal.cancel()   // (the stream ends for a cancelled reader: no hang when the event never came)
        #expect(await refusal.value)
    }

    @Test("a delete that reaches the server after the permission dropped to read-only is refused, and the deleted item comes back")
    func deleteRefusedComesBack() async throws {
        var people = try await People()
        defer { people.server.stop() }
        try await people.accept(people.grace)
        let context = people.grace.container.newBackgroundContext()
        let grace = people.grace
        try await context.perform {
            for item in try grace.list("Groceries", in: context).value(forKey: "items") as? Set<ManagedObject> ?? []
            where item.value(forKey: "title") as? String == "milk" { context.delete(item) }
            try context.save()
        }
        try await people.setPermission(.readOnly, of: "grace")
        try? await people.grace.container.syncNow()
        try await people.grace.container.syncNow()
        let graceItems = try await people.grace.items(of: "Groceries")
        #expect(graceItems == ["eggs", "milk"])
        try await people.ada.container.syncNow()
        #expect(try await people.ada.items(of: "Groceries") == ["eggs", "milk"])
    }

    @Test("removed while offline with unsent edits: the zone leaves the participant's store; the owner's data is untouched")
    func removedWhileOffline() async throws {
        var people = try await People()
        defer { people.server.stop() }
        try await people.accept(people.grace)
        try await people.accept(people.alan)
        let context = people.grace.container.newBackgroundContext()
        let grace = people.grace
        try await context.perform {
            let item = try context.insertNewObject(forEntityName: "Item")
            item.setValue("unsent", forKey: "title")
            item.setValue(try grace.list("Groceries", in: context), forKey: "list")
            try context.save()
        }
        people.share.participants.removeAll { $0.userName == "grace" }
        people.share = try await people.ada.container.persistUpdatedShare(people.share, in: people.ada.privateStore)
        #expect(people.share.participants.first { $0.userName == "grace" }?.state == .removed)
        try? await people.grace.container.syncNow()
        #expect(try await people.grace.items(of: "Groceries") == nil)
        #expect(try await people.grace.count("Item") == 0)
        try await people.ada.container.syncNow()
        #expect(try await people.ada.items(of: "Groceries") == ["eggs", "milk"])
        try await people.alan.container.syncNow()
        #expect(try await people.alan.items(of: "Groceries") == ["eggs", "milk"])
    }

    @Test("a device with unsent edits in a share its user left elsewhere: the zone goes with the edits, and nothing stays pending")
    func leftOnAnotherDeviceWithUnsentEdits() async throws {
        let people = try await People()
        defer { people.server.stop() }
        try await people.accept(people.grace)
        try await people.graceLaptop.container.syncNow()
        let context = people.graceLaptop.container.newBackgroundContext()
        let laptop = people.graceLaptop
        try await context.perform {
            let list = try laptop.list("Groceries", in: context)
            let item = try context.insertNewObject(forEntityName: "Item")
            item.setValue("unsent", forKey: "title")
            item.setValue(list, forKey: "list")
            for old in list.value(forKey: "items") as? Set<ManagedObject> ?? [] where old.value(forKey: "title") as? String == "milk" {
                old.setValue("oat milk", forKey: "title")
            }
            try context.save()
        }
        let shares = try await people.grace.container.fetchShares(in: people.grace.sharedStore)
        try await people.grace.container.leave(try #require(shares.first), in: people.grace.sharedStore)
        try await people.graceLaptop.container.syncNow()
        try await people.graceLaptop.container.syncNow()
        #expect(try await people.graceLaptop.count("Item") == 0)
        #expect(try people.graceLaptop.container.syncStatus().reduce(0) { $0 + $1.pendingUploads } == 0)
        try await people.ada.container.syncNow()
        #expect(try await people.ada.items(of: "Groceries") == ["eggs", "milk"])
    }

    @Test("leaving and unsharing: the zone leaves the participant's store; after unsharing the owner keeps the list")
    func leaveAndUnshare() async throws {
        let people = try await People()
        defer { people.server.stop() }
        try await people.accept(people.grace)
        try await people.accept(people.alan)
        let graceShares = try await people.grace.container.fetchShares(in: people.grace.sharedStore)
        try await people.grace.container.leave(try #require(graceShares.first), in: people.grace.sharedStore)
        #expect(try await people.grace.items(of: "Groceries") == nil)
        try await people.graceLaptop.container.syncNow()
        #expect(try await people.graceLaptop.items(of: "Groceries") == nil)
        try await people.ada.container.stopSharing(people.share, in: people.ada.privateStore)
        try await people.alan.container.syncNow()
        #expect(try await people.alan.items(of: "Groceries") == nil)
        try await people.ada.container.syncNow()
        try await people.adaLaptop.container.syncNow()
        #expect(try await people.ada.items(of: "Groceries") == ["eggs", "milk"])
        #expect(try await people.adaLaptop.items(of: "Groceries") == ["eggs", "milk"])
    }

    @Test("a stranger with a guessed URL, or a user the share does not name, gets nothing")
    func strangers() async throws {
        let people = try await People()
        defer { people.server.stop() }
        let url = try #require(people.share.url)
        let guessed = url.deletingLastPathComponent().appendingPathComponent("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
        await #expect(throws: CloudError.self) {
            try await people.grace.container.acceptShareInvitations(from: [guessed], into: people.grace.sharedStore)
        }
        #expect(try await people.grace.items(of: "Groceries") == nil)
        // Ada's own laptop is not a participant of her share.
        await #expect(throws: CloudError.self) {
            try await people.adaLaptop.container.acceptShareInvitations(from: [url], into: people.adaLaptop.sharedStore)
        }
    }
}
