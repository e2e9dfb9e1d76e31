import Foundation

extension StoreInspector {
    /// The metadata key naming the configuration a store was created for.
    static let configurationKey = "NimbusConfiguration"

    /// The configuration whose entities the store holds, for a description that names none:
    /// the one its metadata records, else the one of the store's own model (or of `model`)
    /// whose entities are exactly those the store keeps. `nil` when the store holds every
    /// entity, or no configuration fits.
    ///
    /// So a store bound to a configuration opens, migrates and is inspected as that
    /// configuration's store even by a tool that does not know the configuration's name
    /// (decision 0058).
    func storedConfiguration(model: ManagedObjectModel?, path: String) -> String? {
        if let name = metadata.dictionary[Self.configurationKey] as? String { return name }
        let stored = Set(metadata.entityHashes.keys)
        let candidates = [try? storedModel(path: path), model].compactMap { $0 }
        for candidate in candidates {
            guard stored != Set(candidate.entities.map(\.name)) else { return nil }
            for name in candidate.configurations.keys.sorted()
            where Set(candidate.entities(forConfiguration: name).map(\.name)) == stored {
                return name
            }
        }
        return nil
    }
}
