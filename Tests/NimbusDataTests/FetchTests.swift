import Foundation
import NimbusData
import Testing

@Suite("ModelContext fetching")
struct FetchTests {
    func seeded() throws -> (ModelContainer, ModelContext) {
        let container = try makeTripsContainer(at: temporaryStoreURL())
        let context = ModelContext(container)
        let day: TimeInterval = 86_400
        let names = ["Rome", "paris", "Oslo", "Lima", "Baku"]
        for (index, name) in names.enumerated() {
            let trip = Trip(name: name, startDate: Date(timeIntervalSinceReferenceDate: Double(index) * day),
                            endDate: Date(timeIntervalSinceReferenceDate: Double(index + 2) * day))
            trip.kind = index.isMultiple(of: 2) ? .leisure : .business
            trip.budget = index == 0 ? nil : Double(index * 100)
            context.insert(trip)
        }
        try context.save()
        return (container, context)
    }

    @Test("#Predicate, SortDescriptor, fetchLimit and fetchOffset run as SQL")
    func predicateAndSort() throws {
        let (container, _) = try seeded()
        let context = ModelContext(container)
        let minimum = 150.0
        var descriptor = FetchDescriptor<Trip>(predicate: #Predicate { ($0.budget ?? 0) > minimum },
                                               sortBy: [SortDescriptor(\.name)])
        #expect(try context.fetch(descriptor).map(\.name) == ["Baku", "Lima", "Oslo"])
        descriptor.fetchLimit = 1
        descriptor.fetchOffset = 1
        #expect(try context.fetch(descriptor).map(\.name) == ["Lima"])
        let wanted = TripKind.business
        let business = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.kind == wanted },
                                                               sortBy: [SortDescriptor(\.startDate, order: .reverse)]))
        #expect(business.map(\.name) == ["Lima", "paris"])
        // Strings sort in code point order (Foundation on Linux compares them .lexical only).
        let all = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(all.map(\.name) == ["Baku", "Lima", "Oslo", "Rome", "paris"])
        let containing = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name.contains("o") }))
        #expect(Set(containing.map(\.name)) == ["Rome", "Oslo"])
    }

    @Test("fetchCount, fetchIdentifiers, model(for:), registeredModel(for:) and enumerate")
    func countsAndIdentifiers() throws {
        let (container, _) = try seeded()
        let context = ModelContext(container)
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 5)
        let ids = try context.fetchIdentifiers(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(ids.count == 5)
        let notYet: Trip? = context.registeredModel(for: ids[0])
        #expect(notYet == nil)
        let first = try #require(context.model(for: ids[0]) as? Trip)
        #expect(first.name == "Baku")
        let registered: Trip? = context.registeredModel(for: ids[0])
        #expect(registered === first)
        #expect(first.persistentModelID == ids[0])
        var seen: [String] = []
        try context.enumerate(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name, comparator: .lexical)]), batchSize: 2) { seen.append($0.name) }
        #expect(seen == ["Baku", "Lima", "Oslo", "Rome", "paris"])
    }

    @Test("includePendingChanges, delete(model:where:), rollback and transaction")
    func pendingAndDeletes() throws {
        let (container, context) = try seeded()
        context.insert(Trip(name: "Kyiv"))
        var descriptor = FetchDescriptor<Trip>()
        #expect(try context.fetchCount(descriptor) == 6)
        descriptor.includePendingChanges = false
        #expect(try context.fetch(descriptor).count == 5)
        context.rollback()
        #expect(!context.hasChanges)
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 5)

        try context.delete(model: Trip.self, where: #Predicate { $0.name.starts(with: "L") })
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 4)

        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try context.transaction {
                context.insert(Trip(name: "Never"))
                throw Stop()
            }
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 4)
        try context.transaction { context.insert(Trip(name: "Always")) }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Always" })) == 1)
    }

    @Test("a predicate with no SQL translation is a typed error, not a wrong result")
    func unsupportedPredicate() throws {
        let (_, context) = try seeded()
        #expect(throws: SwiftDataError.self) {
            try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.bucketList.first?.title == "x" }))
        }
    }

    @Test("willSave and didSave are posted with the saved identifiers")
    func notifications() throws {
        let container = try makeTripsContainer(at: temporaryStoreURL())
        let context = ModelContext(container)
        let trip = Trip(name: "Quito")
        context.insert(trip)
        let received = Received()
        let willSave = NotificationCenter.default.addObserver(forName: ModelContext.willSave, object: context, queue: nil) { _ in
            received.append("willSave")
        }
        let didSave = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { note in
            let ids = note.userInfo?[ModelContext.NotificationKey.insertedIdentifiers.rawValue] as? [PersistentIdentifier] ?? []
            received.append("didSave \(ids.count) \(ids.allSatisfy { !$0.isTemporary })")
        }
        defer {
            NotificationCenter.default.removeObserver(willSave)
            NotificationCenter.default.removeObserver(didSave)
        }
        try context.save()
        #expect(received.values == ["willSave", "didSave 1 true"])
    }
}

final class Received: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ value: String) { lock.withLock { stored.append(value) } }
    var values: [String] { lock.withLock { stored } }
}
