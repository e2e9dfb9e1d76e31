import Foundation
import NimbusData

@Model
final class BucketListItem {
    var title: String
    var details: String
    var hasReservation: Bool
    var isInPlan: Bool
    var priority: Priority = Priority.medium
    var estimatedCost: Cost?
    var trip: Trip?

    init(title: String, details: String, hasReservation: Bool, isInPlan: Bool) {
        self.title = title
        self.details = details
        self.hasReservation = hasReservation
        self.isInPlan = isInPlan
    }

    enum Priority: Int, Codable, Comparable {
        case low = 0, medium = 1, high = 2

        static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    struct Cost: Codable, Hashable {
        var amount: Decimal
        var currency: String
    }
}

extension BucketListItem {
    static var preview: [BucketListItem] {
        [
            BucketListItem(title: "A bucket list item title", details: "Details of my bucket list item",
                           hasReservation: true, isInPlan: true),
            BucketListItem(title: "Another bucket list item title", details: "Details of another bucket list item",
                           hasReservation: false, isInPlan: false),
        ]
    }
}
