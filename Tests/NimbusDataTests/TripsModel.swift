import NimbusData

/// A SwiftData-style model, as an Apple-platform app would write it.
enum TripKind: String, Codable, CaseIterable {
    case leisure, business, family
}

struct Accommodation: Codable, Hashable {
    var name: String
    var address: String
    var nights: Int
}

@Model
final class Trip {
    #Unique<Trip>([\.name, \.startDate])
    #Index<Trip>([\.name], [\.startDate, \.endDate])

    var name: String
    var destination: String = ""
    var startDate: Date = Date(timeIntervalSinceReferenceDate: 0)
    var endDate: Date = Date(timeIntervalSinceReferenceDate: 0)
    var kind: TripKind = TripKind.leisure
    var accommodation: Accommodation?
    var tags: [String] = []
    var budget: Double?
    @Attribute(.externalStorage) var coverPhoto: Data?
    @Attribute(.spotlight, originalName: "details") var notes: String?
    @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip) var bucketList: [BucketListItem] = []
    @Relationship(deleteRule: .nullify, inverse: \LivingAccommodation.trip) var living: LivingAccommodation?
    @Transient var isExpanded = false

    var days: Int { Int(endDate.timeIntervalSince(startDate) / 86_400) }

    init(name: String, destination: String = "", startDate: Date = .now, endDate: Date = .now) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.endDate = endDate
    }
}

@Model
final class BucketListItem {
    var title: String
    var details: String = ""
    var isInPlan: Bool = false
    @Attribute(.preserveValueOnDeletion) var code: UUID = UUID()
    var trip: Trip?

    init(title: String, details: String = "", isInPlan: Bool = false) {
        self.title = title
        self.details = details
        self.isInPlan = isInPlan
    }
}

@Model
final class LivingAccommodation {
    @Attribute(.unique) var placeName: String
    var address: String
    var trip: Trip?

    init(placeName: String, address: String) {
        self.placeName = placeName
        self.address = address
    }
}
