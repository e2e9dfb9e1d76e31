import Foundation
import Logging
import Synchronization

/// A store option that was accepted without effect, or not recognised at all.
///
/// Adding a store logs each warning once per process through swift-log (label
/// `nimbus.store`), so a Core Data stack that sets options Nimbus has no use for still loads.
/// For example, a typo such as `NSPersistentHistoryTrackingkey` logs:
///
/// ```
/// the store option NSPersistentHistoryTrackingkey is not a Core Data or Nimbus option and was ignored; did you mean NSPersistentHistoryTrackingKey?
/// ```
public struct StoreOptionWarning: Sendable, Hashable, CustomStringConvertible {
    /// The option key (for a pragma, `NSSQLitePragmasOption.<name>`).
    public var key: String
    /// What was done with it and why.
    public var message: String

    public var description: String { message }

    private static let reported = Mutex<Set<String>>([])

    /// Logs the warnings whose keys were not reported before in this process; returns those logged.
    @discardableResult
    static func reportOnce(_ warnings: [StoreOptionWarning], to logger: Logger) -> [StoreOptionWarning] {
        let fresh = reported.withLock { reported in warnings.filter { reported.insert($0.key).inserted } }
        for warning in fresh { logger.warning("\(warning.message)") }
        return fresh
    }

    static let logger = Logger(label: "nimbus.store")
}

extension PersistentStoreDescription {
    /// Sets an option as Core Data's `setOption(_:forKey:)` does; nil removes it.
    ///
    /// For example:
    ///
    /// ```swift
    /// description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
    /// description.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey)
    /// ```
    ///
    /// Numbers and strings are kept as text; a dictionary (``NSSQLitePragmasOption``) as
    /// `name=value` pairs joined by `;`. Keys are checked when the store is added.
    public mutating func setOption(_ option: NSObject?, forKey key: String) {
        options[key] = option.map(Self.optionText)
    }

    /// Sets a SQLite pragma as Core Data's `setValue(_:forPragmaNamed:)` does (only
    /// `journal_mode` has an effect; others are reported once as a warning).
    public mutating func setValue(_ value: NSObject?, forPragmaNamed name: String) {
        var pairs = Self.pragmaPairs(options[NSSQLitePragmasOption] ?? "")
        pairs[name] = value.map(Self.optionText)
        options[NSSQLitePragmasOption] = pairs.isEmpty ? nil : pairs.keys.sorted().map { "\($0)=\(pairs[$0]!)" }.joined(separator: ";")
    }

    static func optionText(_ value: Any) -> String {
        switch value {
        case let string as String: return string
        case let number as NSNumber: return number.stringValue
        case let string as NSString: return string as String
        case let url as URL: return url.path
        case let dictionary as NSDictionary:
            var pairs: [String: String] = [:]
            for (key, value) in dictionary { pairs["\(key)"] = optionText(value) }
            return pairs.keys.sorted().map { "\($0)=\(pairs[$0]!)" }.joined(separator: ";")
        case let dictionary as [String: Any]:
            return dictionary.keys.sorted().map { "\($0)=\(optionText(dictionary[$0]!))" }.joined(separator: ";")
        default: return "\(value)"
        }
    }

    private static func pragmaPairs(_ text: String) -> [String: String] {
        var pairs: [String: String] = [:]
        for pair in text.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { pairs[parts[0]] = parts[1] }
        }
        return pairs
    }
}

extension PersistentStoreCoordinator {
    /// Adds a store as Core Data's `addPersistentStore(ofType:configurationName:at:options:)` does.
    ///
    /// For example:
    ///
    /// ```swift
    /// try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
    ///                                    options: [NSMigratePersistentStoresAutomaticallyOption: true,
    ///                                              NSInferMappingModelAutomaticallyOption: true])
    /// ```
    /// - Throws: ``NimbusError/Code-swift.struct/invalidArgument`` for a store type other than
    ///   ``NSSQLiteStoreType`` or ``NSInMemoryStoreType`` or a malformed option value, and the
    ///   errors of `addPersistentStore(with:)`.
    @discardableResult
    public func addPersistentStore(ofType storeType: String, configurationName: String?, at url: URL?,
                                   options: [AnyHashable: Any]? = nil) throws -> PersistentStore {
        guard let type = PersistentStoreDescription.StoreType(rawValue: storeType) else {
            throw NimbusError(.invalidArgument, "the store type \(storeType) is not supported; give NSSQLiteStoreType or NSInMemoryStoreType")
        }
        if type == .sqlite && url == nil {
            throw NimbusError(.invalidArgument, "a SQLite store needs a URL")
        }
        var description = PersistentStoreDescription(type: type, url: url)
        description.configuration = configurationName
        for (key, value) in options ?? [:] { description.options["\(key)"] = PersistentStoreDescription.optionText(value) }
        return try addPersistentStore(with: description)
    }
}
