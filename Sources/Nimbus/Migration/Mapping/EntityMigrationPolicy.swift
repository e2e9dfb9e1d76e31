import Foundation
import Synchronization

/// Custom work for one entity mapping, as Core Data's `NSEntityMigrationPolicy` subclasses
/// do: register a type under the name the mapping model gives as its "Custom Policy"
/// (``EntityMapping/migrationPolicyName``), and implement the hooks it needs. Each hook's
/// default does what Core Data's does, and is available to call from an override as
/// `manager.createDestinationInstance(for:mapping:)` and
/// `manager.createRelationships(for:mapping:)` (Core Data's `super`).
///
/// The hooks run inside the manager's source and destination contexts' queues: objects of
/// both may be used directly.
///
/// For example:
///
/// ```swift
/// struct NotePolicy: EntityMigrationPolicy {
///     func createDestinationInstances(for source: ManagedObject, mapping: EntityMapping,
///                                     manager: MigrationManager) throws {
///         let note = try manager.createDestinationInstance(for: source, mapping: mapping)
///         note.setValue((source.value(forKey: "title") as? String)?.uppercased(), forKey: "title")
///     }
///     func function(named selector: String, arguments: [Any?], manager: MigrationManager) throws -> Any? {
///         selector == "priorityFor:" ? ((arguments[0] as? Bool) == true ? 2 : 0) : nil
///     }
/// }
/// MigrationPolicies.register(NotePolicy.self, as: "Notes.NotePolicy")
/// ```
public protocol EntityMigrationPolicy: Sendable {
    /// Makes a policy; one instance serves one entity mapping of one migration.
    init()
    /// Before the mapping's first object.
    func beginEntityMapping(_ mapping: EntityMapping, manager: MigrationManager) throws
    /// Creates the destination objects of one source object (none drops it).
    func createDestinationInstances(for source: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws
    /// Fills the relationships of one destination object, once every object exists.
    func createRelationships(for destination: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws
    /// After the mapping's last relationship.
    func endEntityMapping(_ mapping: EntityMapping, manager: MigrationManager) throws
    /// Answers `FUNCTION($entityPolicy, "selector", arguments…)` in a value expression.
    func function(named selector: String, arguments: [Any?], manager: MigrationManager) throws -> Any?
}

extension EntityMigrationPolicy {
    public func beginEntityMapping(_ mapping: EntityMapping, manager: MigrationManager) throws {}

    public func createDestinationInstances(for source: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws {
        _ = try manager.createDestinationInstance(for: source, mapping: mapping)
    }

    public func createRelationships(for destination: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws {
        try manager.createRelationships(for: destination, mapping: mapping)
    }

    public func endEntityMapping(_ mapping: EntityMapping, manager: MigrationManager) throws {}

    public func function(named selector: String, arguments: [Any?], manager: MigrationManager) throws -> Any? {
        throw NimbusError(.migrationFailed, "the policy \(Self.self) of mapping \(manager.currentEntityMapping?.name ?? "?") has no function \(selector); implement function(named:arguments:manager:)")
    }
}

/// The policy of mappings that name none: Core Data's `NSEntityMigrationPolicy` itself.
struct DefaultEntityMigrationPolicy: EntityMigrationPolicy {}

/// The registry of custom entity migration policies, by the name a mapping model gives.
///
/// Xcode records a Swift policy as `Module.TypeName`; a name registered without the module
/// (`TypeName`) matches it too.
public enum MigrationPolicies {
    private static let registry = Mutex<[String: any EntityMigrationPolicy.Type]>([:])

    /// Registers a policy type under a name.
    ///
    /// ```swift
    /// MigrationPolicies.register(NotePolicy.self, as: "Notes.NotePolicy")
    /// ```
    public static func register(_ type: any EntityMigrationPolicy.Type, as name: String) {
        registry.withLock { $0[name] = type }
    }

    /// The type registered under a name (or, for `Module.Type`, under `Type`).
    ///
    /// Xcode writes a Swift class as `Module.Type` or `$(PRODUCT_MODULE_NAME).Type`, and an
    /// `@objc` Swift class may appear by its runtime name (`_TtC5Notes10NotePolicy`); each
    /// finds a type registered as `Type`. A bare `Type` finds one registered as `Module.Type`
    /// when no other module registered that type name.
    public static func policyType(named name: String) -> (any EntityMigrationPolicy.Type)? {
        let plain = demangled(name) ?? name
        return registry.withLock { registry in
            if let type = registry[name] ?? registry[plain] ?? plain.split(separator: ".").last.flatMap({ registry[String($0)] }) { return type }
            // An Objective-C name without a module finds a type registered as `Module.Type`
            // when only one module has a type of that name.
            guard !plain.contains(".") else { return nil }
            let matches = registry.filter { $0.key.split(separator: ".").last.map(String.init) == plain }
            return matches.count == 1 ? matches.first!.value : nil
        }
    }

    /// `Module.Type` for a Swift class's runtime name `_TtC<length><Module><length><Type>`.
    static func demangled(_ name: String) -> String? {
        guard name.hasPrefix("_TtC") else { return nil }
        var rest = Substring(name.dropFirst(4))
        var parts: [String] = []
        while !rest.isEmpty {
            let digits = rest.prefix { $0.isNumber }
            guard let length = Int(digits), length > 0 else { return nil }
            rest = rest.dropFirst(digits.count)
            guard rest.count >= length else { return nil }
            parts.append(String(rest.prefix(length)))
            rest = rest.dropFirst(length)
        }
        return parts.count >= 2 ? parts.joined(separator: ".") : nil
    }
}
