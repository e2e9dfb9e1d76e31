import Foundation

extension MigrationManager {
    /// Evaluates a value expression for one object.
    ///
    /// Variables: `$source` (the source object), `$destination`, `$manager`,
    /// `$entityMapping` (the mapping's name) and `$entityPolicy`. Attribute values are the
    /// stored values (a transformable's encoded bytes move unchanged); relationships give
    /// source objects, which `destinationInstancesForEntityMappingNamed:sourceInstances:`
    /// turns into destination objects.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/migrationFailed`` naming the expression.
    public func evaluate(_ expression: MappingExpression, source: ManagedObject?, destination: ManagedObject?,
                         mapping: EntityMapping) throws -> Any? {
        switch expression {
        case let .constant(value):
            return value.anyValue
        case let .keyPath(variable, components):
            let base: Any?
            switch variable {
            case "source": base = source
            case "destination": base = destination
            case "manager": base = self
            case "entityMapping": base = mapping.name
            default: throw NimbusError(.migrationFailed, "\(mapping.name): unknown variable $\(variable) in \(expression)")
            }
            return try Self.follow(components, from: base, in: expression)
        case let .function(receiver, selector, arguments):
            let values = try arguments.map { try evaluate($0, source: source, destination: destination, mapping: mapping) }
            switch receiver {
            case nil:
                return try Self.builtin(selector, values, in: expression)
            case .keyPath("manager", [])?:
                if let result = try managerFunction(selector, values, mapping: mapping) { return result.value }
                throw NimbusError(.migrationFailed, "\(mapping.name): the migration manager has no function \(selector) (in \(expression))")
            case .keyPath("entityPolicy", [])?:
                // The manager's lookups answer through the policy too (its default
                // implementation asks the manager), unless a custom policy says otherwise.
                if mapping.migrationPolicyName == nil, let result = try managerFunction(selector, values, mapping: mapping) { return result.value }
                do {
                    return try policyFunction(selector, values, mapping: mapping)
                } catch let error as NimbusError where error.message.contains("has no function") {
                    if let result = try managerFunction(selector, values, mapping: mapping) { return result.value }
                    throw error
                }
            case let receiver?:
                let target = try evaluate(receiver, source: source, destination: destination, mapping: mapping)
                return try MappingFunctions.call(selector, on: target, values, in: expression)
            }
        case let .expression(query):
            var bindings: [String: Any?] = ["source": source, "destination": destination]
            bindings["entityMapping"] = mapping.name
            let substituted = try substitute(query, bindings: bindings, in: expression)
            let value = try PredicateEvaluator().value(substituted, on: .value(.null))
            guard case let .value(result) = value else { return nil }
            return result.anyValue
        }
    }

    /// The migration manager's functions a value expression may call: the destination
    /// objects of source objects by entity mapping (`destinationInstancesForEntityMappingNamed:sourceInstances:`)
    /// or by the source relationship they came through (`destinationInstancesForSourceRelationshipNamed:sourceInstances:`,
    /// the expression Xcode writes for a relationship), and the reverse lookup. Nil for
    /// any other selector.
    private func managerFunction(_ selector: String, _ values: [Any?], mapping: EntityMapping) throws -> ManagerAnswer? {
        guard values.count == 2 else { return nil }
        switch selector {
        case "destinationInstancesForEntityMappingNamed:sourceInstances:":
            return ManagerAnswer(value: relatedDestinations(mappingName: values[0] as? String, sources: values[1], mapping: mapping))
        case "destinationInstancesForSourceRelationshipNamed:sourceInstances:":
            // The mapping that carries the relationship's destination entity over.
            let relationship = (values[0] as? String).flatMap { name in
                mapping.sourceEntityName.flatMap { sourceModel.entitiesByName[$0]?.property(named: name)?.relationship }
            }
            let through = relationship.flatMap { relationship in
                mappingModel.entityMappings.first { $0.sourceEntityName == relationship.destinationEntityName && $0.kind != .remove }?.name
            }
            return ManagerAnswer(value: relatedDestinations(mappingName: through, sources: values[1], mapping: mapping))
        case "sourceInstancesForEntityMappingNamed:destinationInstances:":
            let objects: [ManagedObject] = switch values[1] {
            case let one as ManagedObject: [one]
            case let many as Set<ManagedObject>: many.sorted { $0.objectID < $1.objectID }
            case let many as [ManagedObject]: many
            default: []
            }
            return ManagerAnswer(value: sourceInstances(forEntityMappingNamed: values[0] as? String, destinationInstances: objects))
        default:
            return nil
        }
    }

    private func policyFunction(_ selector: String, _ values: [Any?], mapping: EntityMapping) throws -> Any? {
        let type = mapping.migrationPolicyName.flatMap(MigrationPolicies.policyType(named:)) ?? DefaultEntityMigrationPolicy.self
        return try type.init().function(named: selector, arguments: values, manager: self)
    }

    /// The destination objects of source objects (one object, a set or an array).
    private func relatedDestinations(mappingName: String?, sources value: Any?, mapping: EntityMapping) -> Any? {
        let objects: [ManagedObject] = switch value {
        case let one as ManagedObject: [one]
        case let many as Set<ManagedObject>: many.sorted { $0.objectID < $1.objectID }
        case let many as [ManagedObject]: many
        default: []
        }
        let name = mappingName.flatMap { $0.isEmpty ? nil : $0 } ?? objects.first.flatMap { object in
            mappingModel.entityMappings.first { $0.sourceEntityName == object.entity.name && $0.kind != .remove }?.name
        }
        return destinationInstances(forEntityMappingNamed: name, sourceInstances: objects)
    }

    /// Replaces `$source.key` and friends with constants, so the predicate language's
    /// evaluator can compute the rest.
    private func substitute(_ query: QueryExpression, bindings: [String: Any?], in expression: MappingExpression) throws -> QueryExpression {
        func constant(_ value: Any?) throws -> QueryExpression {
            do { return try PredicateConstants.expression(from: value) } catch {
                throw NimbusError(.migrationFailed, "\(expression): a \(type(of: value!)) cannot be computed with here")
            }
        }
        switch query {
        case let .variable(name):
            guard let bound = bindings[name] else { throw NimbusError(.migrationFailed, "unknown variable $\(name) in \(expression)") }
            return try constant(bound)
        case let .variableKeyPath(name, components):
            guard let bound = bindings[name] else { throw NimbusError(.migrationFailed, "unknown variable $\(name) in \(expression)") }
            return try constant(try Self.follow(components, from: bound, in: .expression(query)))
        case let .function(name, arguments):
            return .function(name, try arguments.map { try substitute($0, bindings: bindings, in: expression) })
        case let .aggregate(items):
            return .aggregate(try items.map { try substitute($0, bindings: bindings, in: expression) })
        case let .conditional(predicate, a, b):
            return .conditional(predicate, try substitute(a, bindings: bindings, in: expression), try substitute(b, bindings: bindings, in: expression))
        default:
            return query
        }
    }

    /// Follows a key path: attributes as stored values, relationships as objects.
    static func follow(_ components: [String], from base: Any?, in expression: MappingExpression) throws -> Any? {
        var value = base
        for component in components {
            switch value {
            case nil:
                return nil
            case let object as ManagedObject:
                guard let property = object.entity.property(named: component) else {
                    throw NimbusError(.migrationFailed, "\(object.entity.name) has no property \(component) (in \(expression))")
                }
                if property.attribute != nil {
                    value = try object.validatedValue(forKey: component) == nil ? nil : object.primitiveValue(forKey: component)?.anyValue
                } else {
                    value = try object.validatedValue(forKey: component)
                }
            case let objects as Set<ManagedObject>:
                if component == "@count" { value = Int64(objects.count); continue }
                value = try objects.map { try follow([component], from: $0, in: expression) }
            case let objects as [ManagedObject]:
                if component == "@count" { value = Int64(objects.count); continue }
                value = try objects.map { try follow([component], from: $0, in: expression) }
            default:
                value = try MappingFunctions.call(component, on: value, [], in: expression)
            }
        }
        return value
    }

    /// NSExpression's own functions (`add:to:`, `uppercase:`, `now`, …), with the
    /// predicate language's evaluator.
    static func builtin(_ selector: String, _ values: [Any?], in expression: MappingExpression) throws -> Any? {
        let arguments = try values.map { value -> QueryExpression in
            do { return try PredicateConstants.expression(from: value) } catch {
                throw NimbusError(.migrationFailed, "\(expression): a \(type(of: value!)) cannot be an argument of \(selector)")
            }
        }
        guard case let .value(result) = try PredicateEvaluator().value(.function(selector, arguments), on: .value(.null)) else { return nil }
        return result.anyValue
    }
}

/// A manager function's answer (which may itself be nil).
struct ManagerAnswer {
    var value: Any?
}
