import Foundation
import NimbusData

@Model
final class LivingAccommodation {
    var address: String
    var placeName: String
    var amenities: [String] = []
    var trip: Trip?

    init(address: String, placeName: String) {
        self.address = address
        self.placeName = placeName
    }
}

extension LivingAccommodation {
    var displayAddress: String {
        address.isEmpty ? "No Address" : address
    }

    var displayPlaceName: String {
        placeName.isEmpty ? "No Place" : placeName
    }
}
