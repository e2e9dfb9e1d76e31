import Foundation
import NimbusData

@Model
final class Trip {
    #Index<Trip>([\.name], [\.startDate], [\.endDate], [\.name, \.startDate, \.endDate])
    #Unique<Trip>([\.name, \.startDate, \.endDate])

    @Attribute(.preserveValueOnDeletion)
    var name: String
    var destination: String

    @Attribute(.preserveValueOnDeletion)
    var startDate: Date

    @Attribute(.preserveValueOnDeletion)
    var endDate: Date

    @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
    var bucketList: [BucketListItem] = [BucketListItem]()

    @Relationship(deleteRule: .cascade, inverse: \LivingAccommodation.trip)
    var livingAccommodation: LivingAccommodation?

    @Transient
    var isSelected = false

    init(name: String, destination: String, startDate: Date = .now, endDate: Date = .distantFuture) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.endDate = endDate
    }
}

extension Trip {
    var displayName: String {
        name.isEmpty ? "Untitled Trip" : name
    }

    var displayDestination: String {
        destination.isEmpty ? "Untitled Destination" : destination
    }

    var color: TripColor {
        let seed = name.unicodeScalars.reduce(0) { $0 + Int($1.value) }
        return TripColor.allCases[seed % TripColor.allCases.count]
    }

    static var preview: Trip {
        Trip(name: "Trip Name", destination: "Trip destination",
             startDate: .now, endDate: .now.addingTimeInterval(4 * 3600))
    }

    static func predicate(searchText: String, startDate: Date, endDate: Date) -> Predicate<Trip> {
        if searchText.isEmpty {
            return #Predicate<Trip> { trip in
                trip.startDate < endDate && trip.endDate > startDate
            }
        } else {
            return #Predicate<Trip> { trip in
                trip.name.contains(searchText) && trip.startDate < endDate && trip.endDate > startDate
            }
        }
    }
}

enum TripColor: String, Codable, CaseIterable {
    case red, orange, green, blue, purple
}
