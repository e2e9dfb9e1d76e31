import Foundation
import Nimbus
import NimbusCloud
import NimbusTesting
import NimbusWire
import Testing

@Suite("Sharing: the owner's side", .serialized)
struct OwnerSharingTests {
    @Test("share() moves a list and its items into a zone of their own; the owner's other device follows, nothing doubles")
    func shareMovesTheGraph() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let phone = try SharingModel.Device(server, token: server.tokens[0])
        let laptop = try SharingModel.Device(server, token: server.tokens[1])
        let listID = try await phone.makeList("Groceries", items: ["milk", "eggs"])
        let context = phone.container.newBackgroundContext()
        try await context.perform {
            let note = try context.insertNewObject(forEntityName: "Note")
            note.setValue("private", forKey: "text")
            try context.save()
        }
        try await phone.container.syncNow()
        try await laptop.container.syncNow()
        #expect(try await laptop.items(of: "Groceries") == ["eggs", "milk"])

        let (shared, share) = try await phone.container.share(objectIDs: [listID])
        #expect(shared.count == 3)
        #expect(shared.contains(listID))
        #expect(share.isOwner)
        #expect(share.zoneID.zoneName.hasPrefix("com.nimbus.share."))
        #expect(phone.container.isShared(listID))
        #expect(phone.container.canUpdateRecord(forManagedObjectWith: listID))
        // Same objects, same IDs on the sharing device.
        #expect(try await phone.items(of: "Groceries") == ["eggs", "milk"])
        #expect(try await context.perform { try context.existingObject(with: listID).value(forKey: "name") as? String } == "Groceries")

        // The default zone no longer holds them (only markers of the move, decision 0072); the share's zone does.
        let transport = HTTPTransport(options: CloudContainerOptions(serverURL: server.url, containerIdentifier: "lists", token: server.tokens[0]))
        let defaultZone = try await transport.fetchChanges(FetchZoneChangesRequest(), in: ZoneID(zoneName: CloudContainerOptions.defaultZoneName))
        let markers = defaultZone.records.filter { $0.fields["CD_movedTo"] != nil }
        #expect(Set(defaultZone.records.filter { $0.fields["CD_movedTo"] == nil }.map(\.recordType)) == ["CD_Note"])
        #expect(markers.count == 3 && markers.allSatisfy { $0.fields["CD_movedTo"]?.value == .string(share.zoneID.zoneName) })
        let shareZone = try await transport.fetchChanges(FetchZoneChangesRequest(), in: share.zoneID)
        #expect(shareZone.records.map(\.recordType).sorted() == ["CD_Item", "CD_Item", "CD_List"])

        // The owner's other device finds the new zone: one list, not two, not none.
        try await laptop.container.syncNow()
        try await laptop.container.syncNow()
        #expect(try await laptop.items(of: "Groceries") == ["eggs", "milk"])
        #expect(try await laptop.count("List") == 1)
        #expect(try await laptop.count("Note") == 1)

        // Edits and new items follow the list into its zone, from either device.
        let laptopContext = laptop.container.newBackgroundContext()
        try await laptopContext.perform {
            let list = try laptop.list("Groceries", in: laptopContext)
            let item = try laptopContext.insertNewObject(forEntityName: "Item")
            item.setValue("bread", forKey: "title")
            item.setValue(list, forKey: "list")
            try laptopContext.save()
        }
        try await laptop.container.syncNow()
        try await phone.container.syncNow()
        #expect(try await phone.items(of: "Groceries") == ["bread", "eggs", "milk"])
        let again = try await transport.fetchChanges(FetchZoneChangesRequest(), in: share.zoneID)
        #expect(again.records.filter { $0.recordType == "CD_Item" }.count == 3)
    }

    @Test("sharing the same objects again (or after a share() that failed half-way) completes the same share")
    func shareAgain() async throws {
        let server = try await SyncServer(user: "ada", otherUsers: ["grace"])
        defer { server.stop() }
        let phone = try SharingModel.Device(server, token: server.tokens[0])
        let listID = try await phone.makeList("Trip", items: ["tent", "stove"])
        var first = try await phone.container.share(objectIDs: [listID]).share
        first.participants = [ShareParticipant(userName: "grace", permission: .readOnly)]
        first = try await phone.container.persistUpdatedShare(first, in: phone.privateStore)
        let (ids, again) = try await phone.container.share(objectIDs: [listID])
        #expect(again.shareID == first.shareID)
        #expect(again.zoneID == first.zoneID)
        #expect(ids.count == 3)
        #expect(again.participants.map(\.userName) == ["grace"])
        let transport = HTTPTransport(options: CloudContainerOptions(serverURL: server.url, containerIdentifier: "lists", token: server.tokens[0]))
        let zones = try await transport.listZones().map(\.zoneID.zoneName).filter { $0.hasPrefix("com.nimbus.share.") }
        #expect(zones == [first.zoneID.zoneName])
    }

    @Test("a link from a shared item to a private tag stays on the owner's device; the item's record carries no reference")
    func linkToPrivateObjectStaysPrivate() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let phone = try SharingModel.Device(server, token: server.tokens[0])
        let listID = try await phone.makeList("Trip", items: ["tent"])
        let context = phone.container.newBackgroundContext()
        // A private tag, synced before the list is shared (and not reachable from it).
        let tagID = try await context.perform {
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag.setValue("secret", forKey: "name")
            try context.save()
            return tag.objectID
        }
        try await phone.container.syncNow()
        let (_, share) = try await phone.container.share(objectIDs: [listID])
        try await context.perform {
            let tag = try context.existingObject(with: tagID)
            let item = (try context.existingObject(with: listID).value(forKey: "items") as? Set<ManagedObject>)!.first!
            item.setValue(tag, forKey: "tag")
            item.setValue("big tent", forKey: "title")
            try context.save()
        }
        try await phone.container.syncNow()
        let transport = HTTPTransport(options: CloudContainerOptions(serverURL: server.url, containerIdentifier: "lists", token: server.tokens[0]))
        let zone = try await transport.fetchChanges(FetchZoneChangesRequest(), in: share.zoneID)
        let item = try #require(zone.records.first { $0.recordType == "CD_Item" })
        #expect(item.fields["CD_title"]?.value == .string("big tent"))
        #expect(item.fields["CD_tag"]?.value == nil, "no reference to the private tag")
        #expect(!zone.records.contains { $0.recordType == "CD_Tag" })
        let defaultZone = try await transport.fetchChanges(FetchZoneChangesRequest(), in: ZoneID(zoneName: CloudContainerOptions.defaultZoneName))
        #expect(defaultZone.records.contains { $0.recordType == "CD_Tag" })
        // Locally the link is there.
        let tagName = try await context.perform {
            ((try context.existingObject(with: listID).value(forKey: "items") as? Set<ManagedObject>)!.first!.value(forKey: "tag") as? ManagedObject)?
                .value(forKey: "name") as? String
        }
        #expect(tagName == "secret")
    }

    @Test("objects of two stores cannot be related, and a new object related to a store's object joins that store")
    func crossStoreReferences() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let phone = try SharingModel.Device(server, token: server.tokens[0])
        // A list in the shared store (as an import would put it there).
        let context = phone.container.newBackgroundContext()
        let sharedList = try await context.perform {
            let list = try context.insertNewObject(forEntityName: "List")
            list.setValue("theirs", forKey: "name")
            context.assign(list, to: phone.sharedStore)
            try context.save()
            return list.objectID
        }
        let item = try await context.perform {
            let item = try context.insertNewObject(forEntityName: "Item")
            item.setValue("joins", forKey: "title")
            item.setValue(try context.existingObject(with: sharedList), forKey: "list")
            try context.save()
            return item.objectID
        }
        #expect(item.storeIdentifier == phone.sharedStore.identifier)
        let refused = await #expect(throws: NimbusError.self) {
            try await context.perform {
                let tag = try context.insertNewObject(forEntityName: "Tag")
                tag.setValue("mine", forKey: "name")
                context.assign(tag, to: phone.privateStore)
                try context.existingObject(with: item).setValue(tag, forKey: "tag")
                try context.save()
            }
        }
        #expect(refused?.message.contains("another store") == true)
    }
}

@Suite("Sharing: bad records in a shared zone", .serialized)
struct SharedZoneBadRecordTests {
    @Test("a record of an unknown type is set aside, and one referring to a record that never comes is settled, in the shared zone's own import")
    func badRecords() async throws {
        let server = try await SyncServer(user: "ada", otherUsers: ["grace"])
        defer { server.stop() }
        let ada = try SharingModel.Device(server, token: server.tokens[0])
        let grace = try SharingModel.Device(server, token: server.otherTokens["grace"]!)
        let listID = try await ada.makeList("Groceries", items: ["milk"])
        var share = try await ada.container.share(objectIDs: [listID]).share
        share.participants = [ShareParticipant(userName: "grace", permission: .readWrite)]
        share = try await ada.container.persistUpdatedShare(share, in: ada.privateStore)
        // Another client of Ada's writes two bad records into the share's zone.
        let transport = HTTPTransport(options: CloudContainerOptions(serverURL: server.url, containerIdentifier: "lists", token: server.tokens[0]))
        let stamp = HLCStamp(time: Int64(Date().timeIntervalSince1970 * 1000) << 16, device: "other-client")
        let gadget = Record(recordName: "gadget-1", recordType: "CD_Gadget", fields: ["CD_entityName": Field(.string("Gadget"), stamp: stamp), "CD_name": Field(.string("?"), stamp: stamp)])
        let orphan = Record(recordName: "orphan-1", recordType: "CD_Item",
                            fields: ["CD_entityName": Field(.string("Item"), stamp: stamp), "CD_title": Field(.string("orphan"), stamp: stamp), "CD_list": Field(.string("no-such-record"), stamp: stamp)])
        let response = try await transport.modify(ModifyRecordsRequest(saves: [gadget, orphan], savePolicy: .allKeys), in: share.zoneID)
        #expect(response.results.allSatisfy { $0.status == .saved })
        try await grace.container.acceptShareInvitations(from: [try #require(share.url)], into: grace.sharedStore)
        try await grace.container.syncNow()
        #expect(try await grace.items(of: "Groceries") == ["milk"])
        let quarantined = try grace.container.quarantinedRecords()
        let status = try grace.container.syncStatus()
        #expect(quarantined.map(\.recordName) == ["gadget-1"], "\(quarantined) \(status)")
        // The orphan waited for its list, which the zone does not have: settled as if the list
        // had been deleted, so it follows the list's cascade rule (the same on every device).
        let context = grace.container.newBackgroundContext()
        let orphanList = try await context.perform {
            var request = FetchRequest<ManagedObject>(entityName: "Item")
            request.predicate = try QueryPredicate(format: "title == 'orphan'", argumentArray: [])
            return try context.fetch(request).map { $0.value(forKey: "list") == nil }
        }
        #expect(orphanList.isEmpty)
        #expect(try grace.container.syncStatus().reduce(0) { $0 + $1.parkedRecords } == 0)
    }
}
