import Foundation
import NimbusData

/// The data code of the app's screens, as SwiftData code.
struct TripQueries {
    let modelContext: ModelContext

    func upcomingTrips(after date: Date) throws -> [Trip] {
        let descriptor = FetchDescriptor<Trip>(
            predicate: #Predicate { $0.startDate >= date },
            sortBy: [SortDescriptor(\.startDate)]
        )
        return try modelContext.fetch(descriptor)
    }

    func search(_ text: String, from start: Date, to end: Date) throws -> [Trip] {
        try modelContext.fetch(FetchDescriptor(predicate: Trip.predicate(searchText: text, startDate: start, endDate: end),
                                               sortBy: [SortDescriptor(\Trip.name)]))
    }

    func unplannedItems(of trip: Trip) -> [BucketListItem] {
        trip.bucketList.filter { !$0.isInPlan }.sorted { $0.priority > $1.priority }
    }

    func highPriorityItemCount() throws -> Int {
        let high = BucketListItem.Priority.high
        return try modelContext.fetchCount(FetchDescriptor<BucketListItem>(predicate: #Predicate { $0.priority == high }))
    }

    func addItem(_ title: String, to trip: Trip) throws {
        let item = BucketListItem(title: title, details: "", hasReservation: false, isInPlan: false)
        trip.bucketList.append(item)
        try modelContext.save()
    }

    func deleteTrip(_ trip: Trip) throws {
        modelContext.delete(trip)
        try modelContext.save()
    }

    func deletePastTrips(before date: Date) throws {
        try modelContext.delete(model: Trip.self, where: #Predicate { $0.endDate < date })
        try modelContext.save()
    }

    func deletedTripNames(since token: DefaultHistoryToken?) throws -> [String] {
        var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
        if let token {
            descriptor.predicate = #Predicate { $0.token > token }
        }
        var names: [String] = []
        for transaction in try modelContext.fetchHistory(descriptor) {
            for change in transaction.changes {
                if case let .delete(deletion as DefaultHistoryDelete<Trip>) = change, let name = deletion.tombstone[\.name] as? String {
                    names.append(name)
                }
            }
        }
        return names
    }
}
