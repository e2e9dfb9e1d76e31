import NimbusWire

/// The typed errors storage backends throw.
package enum StorageErrors {
    package static func zoneNotFound(_ zone: ZoneKey) -> WireError {
        WireError(.zoneNotFound, "No zone named '\(zone.zoneName)' exists in the \(zone.database.scope.rawValue) database of '\(zone.database.container)'. Create it first.")
    }

    package static func quotaExceeded(used: Int64, adding: Int64, quota: Int64) -> WireError {
        WireError(.quotaExceeded, "This change needs \(adding) more bytes; the account uses \(used) of its \(quota)-byte quota. Delete records or assets, or ask for a larger quota.")
    }
}

extension StorageErrors {
    package static func notShared(_ zone: ZoneKey) -> WireError {
        WireError(.unknownItem, "The zone '\(zone.zoneName)' is not shared. Share it with PUT …/zones/\(zone.zoneName)/share.")
    }
}
