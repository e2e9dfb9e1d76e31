import Foundation
import NimbusData

enum SampleData {
    static let day: TimeInterval = 86_400
    static let origin = Date(timeIntervalSinceReferenceDate: 800_000_000)

    static func trips() -> [Trip] {
        let paris = Trip(name: "Paris Weekend", destination: "Paris", startDate: origin, endDate: origin + 3 * day)
        paris.bucketList = [
            BucketListItem(title: "Louvre", details: "Mona Lisa", hasReservation: true, isInPlan: true),
            BucketListItem(title: "Seine cruise", details: "At sunset", hasReservation: false, isInPlan: true),
        ]
        paris.bucketList[0].priority = .high
        paris.bucketList[0].estimatedCost = BucketListItem.Cost(amount: 22, currency: "EUR")
        let hotel = LivingAccommodation(address: "1 Rue de Rivoli", placeName: "Hôtel du Louvre")
        hotel.amenities = ["wifi", "breakfast"]
        paris.livingAccommodation = hotel

        let tokyo = Trip(name: "Tokyo Business", destination: "Tokyo", startDate: origin + 10 * day, endDate: origin + 17 * day)
        tokyo.bucketList.append(BucketListItem(title: "Tsukiji", details: "Breakfast", hasReservation: false, isInPlan: false))

        let hike = Trip(name: "Alps Hike", destination: "Chamonix", startDate: origin + 30 * day, endDate: origin + 33 * day)
        return [paris, tokyo, hike]
    }
}
