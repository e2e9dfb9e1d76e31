import Foundation
import NimbusData
import Testing

@Suite("@Model classes")
struct ModelTests {
    @Test("a model made before insertion keeps its values, and they are saved and read back from the file")
    func valuesRoundTrip() throws {
        let url = temporaryStoreURL()
        do {
            let container = try makeTripsContainer(at: url)
            let context = ModelContext(container)
            let trip = Trip(name: "Paris", destination: "France")
            trip.kind = .family
            trip.accommodation = Accommodation(name: "Hôtel", address: "Rue 1", nights: 3)
            trip.tags = ["food", "art"]
            trip.budget = 1200.5
            trip.notes = "bring an umbrella"
            #expect(trip.modelContext == nil)
            #expect(trip.name == "Paris")
            context.insert(trip)
            #expect(trip.modelContext === context)
            #expect(trip.name == "Paris")
            #expect(trip.kind == .family)
            #expect(context.hasChanges)
            try context.save()
            #expect(!context.hasChanges)
        }
        let container = try makeTripsContainer(at: url)
        let trips = try ModelContext(container).fetch(FetchDescriptor<Trip>())
        #expect(trips.count == 1)
        let trip = try #require(trips.first)
        #expect(trip.name == "Paris")
        #expect(trip.destination == "France")
        #expect(trip.kind == .family)
        #expect(trip.accommodation == Accommodation(name: "Hôtel", address: "Rue 1", nights: 3))
        #expect(trip.tags == ["food", "art"])
        #expect(trip.budget == 1200.5)
        #expect(trip.notes == "bring an umbrella")
        #expect(trip.coverPhoto == nil)
        #expect(!trip.persistentModelID.isTemporary)
    }

    @Test("defaults of declarations apply, and optionals start nil")
    func defaults() throws {
        let container = try makeTripsContainer(at: temporaryStoreURL())
        let context = ModelContext(container)
        let item = BucketListItem(title: "Louvre")
        context.insert(item)
        try context.save()
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<BucketListItem>()).first)
        #expect(fetched.title == "Louvre")
        #expect(fetched.isInPlan == false)
        #expect(fetched.details == "")
        #expect(fetched.trip == nil)
        #expect(fetched.code == item.code)
    }

    @Test("relationships: to-many appends insert new models, inverses follow, cascade deletes")
    func relationships() throws {
        let url = temporaryStoreURL()
        let container = try makeTripsContainer(at: url)
        let context = ModelContext(container)
        let trip = Trip(name: "Rome")
        context.insert(trip)
        let item = BucketListItem(title: "Colosseum")
        trip.bucketList.append(item)
        #expect(item.modelContext === context)
        #expect(item.trip === trip)
        let second = BucketListItem(title: "Pantheon")
        second.trip = trip
        #expect(trip.bucketList.count == 2)
        let living = LivingAccommodation(placeName: "Villa", address: "Via 2")
        trip.living = living
        #expect(living.trip === trip)
        try context.save()

        let other = ModelContext(container)
        let fetched = try #require(try other.fetch(FetchDescriptor<Trip>()).first)
        #expect(Set(fetched.bucketList.map(\.title)) == ["Colosseum", "Pantheon"])
        #expect(fetched.living?.placeName == "Villa")
        other.delete(fetched)
        try other.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<BucketListItem>()) == 0)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<LivingAccommodation>()) == 1)
    }

    @Test("inserting a model whose unique value is stored already updates the stored one (an upsert)")
    func uniqueUpsert() throws {
        let container = try makeTripsContainer(at: temporaryStoreURL())
        let context = ModelContext(container)
        context.insert(LivingAccommodation(placeName: "Villa", address: "a"))
        try context.save()
        let other = ModelContext(container)
        other.insert(LivingAccommodation(placeName: "Villa", address: "b"))
        other.insert(LivingAccommodation(placeName: "Hut", address: "c"))
        try other.save()
        let all = try ModelContext(container).fetch(FetchDescriptor<LivingAccommodation>(sortBy: [SortDescriptor(\.placeName)]))
        #expect(all.map(\.placeName) == ["Hut", "Villa"])
        #expect(all.map(\.address) == ["c", "b"])
    }
}
