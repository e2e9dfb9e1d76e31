import Foundation
import Nimbus

extension PersistentStoreDescription {
    /// The option key under which the cloud options travel with a description.
    static let cloudOptionsKey = "NimbusCloudContainerOptions"

    /// The cloud options that make this store mirror, or `nil` for a local store.
    ///
    /// For example:
    /// ```swift
    /// description.cloudContainerOptions = CloudContainerOptions(serverURL: url, containerIdentifier: "app", token: token)
    /// ```
    public var cloudContainerOptions: CloudContainerOptions? {
        get {
            guard let json = options[Self.cloudOptionsKey] else { return nil }
            return try? JSONDecoder().decode(CloudContainerOptions.self, from: Data(json.utf8))
        }
        set {
            guard let newValue, let data = try? JSONEncoder().encode(newValue) else {
                options[Self.cloudOptionsKey] = nil
                return
            }
            options[Self.cloudOptionsKey] = String(decoding: data, as: UTF8.self)
        }
    }
}
