import Foundation
import GRDB

extension PredicateSQLCompiler {
    typealias Kind = PredicateSemantics.Kind

    /// A single SQL value, with what is known of its type.
    struct Scalar {
        var sql: SQL
        var kind: Kind?
        var type: AttributeType?
        /// For object values (`Z_PK` or a foreign key): the entity they point at.
        var entity: EntityDescription?
    }

    /// The elements of a to-many key path, in an open subquery frame.
    struct Collection {
        var frame: Int
        /// Each element: an object row (its scope) or a value.
        var objectScope: Scope?
        var value: Scalar
    }

    /// A compiled expression before it meets its comparison.
    indirect enum Operand {
        case constant(PropertyValue)
        case scalar(Scalar)
        case list([Operand])
        case collection(Collection)
    }

    static func kind(of type: AttributeType) -> Kind {
        switch type {
        case .integer16, .integer32, .integer64, .double, .float, .decimal, .boolean: .number
        case .string: .string
        case .date: .date
        case .binaryData, .transformable: .data
        case .uuid: .uuid
        case .uri: .url
        }
    }

    /// An operand that must be a single value.
    mutating func scalar(_ operand: Operand, _ context: String) throws -> Scalar {
        switch operand {
        case let .scalar(s): return s
        case let .constant(value):
            return Scalar(sql: bind(value.databaseValue), kind: Kind(value), type: nil,
                          entity: { if case let .object(id) = value { id.entity } else { nil } }())
        case .list:
            throw NimbusError(.typeMismatch, "an array cannot be used as one value in \(context)")
        case let .collection(c):
            frames[c.frame] = nil
            throw NimbusError(.typeMismatch, "the to-many key path in \(context) needs ANY, ALL, NONE, IN, CONTAINS or an operator such as @count")
        }
    }

    mutating func operand(_ expression: QueryExpression) throws -> Operand {
        switch expression {
        case let .constant(value):
            if case let .objects(ids) = value { return .list(ids.map { .constant(.object($0)) }) }
            return .constant(value)
        case let .aggregate(items): return .list(try items.map { try operand($0) })
        case let .keyPath(components):
            if components.count == 1, let alias = resultAliases[components[0]] {
                return .scalar(Scalar(sql: SQL(alias), kind: nil, type: nil))
            }
            return try keyPath(components, from: mainScope, frame: nil)
        case .evaluatedObject: return .scalar(Scalar(sql: SQL("\(mainAlias).Z_PK"), kind: .object, entity: entity))
        case let .variable(name):
            guard let scope = variables[name] else {
                throw NimbusError(.invalidPredicate, "variable $\(name) has no value; bind it with withSubstitutionVariables([\"\(name)\": …])")
            }
            return .scalar(Scalar(sql: SQL("\(scope.alias).Z_PK"), kind: .object, entity: scope.entity))
        case let .variableKeyPath(name, components):
            guard let scope = variables[name] else {
                throw NimbusError(.invalidPredicate, "variable $\(name) has no value; bind it with withSubstitutionVariables([\"\(name)\": …])")
            }
            // To-one hops join in the variable's subquery; to-many hops open a nested one.
            return try keyPath(components, from: scope, frame: nil)
        case let .subquery(collectionExpression, variable, predicate):
            guard case let .collection(c) = try operand(collectionExpression), let element = c.objectScope else {
                throw NimbusError(.invalidPredicate, "SUBQUERY needs a to-many relationship as its collection, not \(collectionExpression)")
            }
            let saved = variables[variable]
            variables[variable] = element
            defer { variables[variable] = saved }
            let condition = try compile(predicate)
            frames[c.frame]?.conditions.append(condition)
            return .collection(c)
        case let .conditional(predicate, a, b):
            let condition = try compile(predicate)
            var (x, y) = (try operand(a), try operand(b))
            let (sx, sy) = try coercedPair(&x, &y, "TERNARY(\(predicate), \(a), \(b))")
            return .scalar(Scalar(sql: "CASE WHEN " + condition + " THEN " + sx.sql + " ELSE " + sy.sql + " END",
                                  kind: sx.kind ?? sy.kind, type: sx.type ?? sy.type, entity: sx.entity ?? sy.entity))
        case let .function(name, arguments):
            return try function(name, arguments)
        }
    }

    /// Walks a key path: to-one hops join, to-many hops open (or extend) a subquery frame,
    /// collection operators close it into a scalar subquery.
    mutating func keyPath(_ components: [String], from start: Scope, frame startFrame: Int?) throws -> Operand {
        var scope = start
        var frame = startFrame
        var i = 0
        func result(_ scalar: Scalar, object: Scope?) -> Operand {
            if let frame { return .collection(Collection(frame: frame, objectScope: object, value: scalar)) }
            return .scalar(scalar)
        }
        while i < components.count {
            let name = components[i]
            i += 1
            if name.hasPrefix("@") {
                guard let open = frame else {
                    throw NimbusError(.invalidPredicate, "\(name) needs a to-many relationship before it, as in items.\(name)")
                }
                if name == "@count", i < components.count {
                    frames[open] = nil
                    throw NimbusError(.unknownProperty, "key path \(components.joined(separator: ".")) cannot continue after @count")
                }
                guard case let .collection(c) = try keyPath(Array(components[i...]), from: scope, frame: open) else {
                    throw NimbusError(.invalidPredicate, "\(name) needs a collection")
                }
                return .scalar(try aggregate(name, c, "\(components.joined(separator: "."))"))
            }
            guard let index = scope.entity.propertyIndexes[name] else {
                if let open = frame { frames[open] = nil }
                let known = scope.entity.properties.map(\.name).joined(separator: ", ")
                throw NimbusError(.unknownProperty, "\(scope.entity.name) has no property \(name) (key path \(components.joined(separator: ".")); properties: \(known))")
            }
            let storage = schema.mapping(for: scope.entity).storage[index]
            switch scope.entity.properties[index] {
            case let .attribute(attribute):
                guard case let .column(column) = storage else {
                    throw NimbusError(.unsupported, "\(scope.entity.name).\(name) is transient, so it cannot be used in a fetch")
                }
                let value = Scalar(sql: SQL("\(scope.alias).\(column.quotedDatabaseIdentifier)"), kind: Self.kind(of: attribute.type), type: attribute.type)
                if i < components.count {
                    guard let open = frame, components[i].hasPrefix("@"), i + 1 == components.count else {
                        throw NimbusError(.unknownProperty, "\(scope.entity.name).\(name) is an attribute; key path \(components.joined(separator: ".")) cannot continue after it")
                    }
                    return .scalar(try aggregate(components[i], Collection(frame: open, objectScope: nil, value: value), components.joined(separator: ".")))
                }
                return result(value, object: nil)
            case let .relationship(relationship) where !relationship.isToMany:
                guard case let .foreignKey(column, _) = storage, let destination = scope.entity.destination(of: relationship) else {
                    throw NimbusError(.unsupported, "\(scope.entity.name).\(name) is not stored, so it cannot be used in a fetch")
                }
                if i == components.count {
                    return result(Scalar(sql: SQL("\(scope.alias).\(column.quotedDatabaseIdentifier)"), kind: .object, entity: destination), object: nil)
                }
                scope = joinToOne(from: scope, relationship: name, column: column, destination: destination)
            case let .relationship(relationship):
                let open = frame ?? openFrame()
                frame = open
                scope = try joinToMany(frame: open, from: scope, index: index, relationship: relationship)
            }
        }
        return result(Scalar(sql: SQL("\(scope.alias).Z_PK"), kind: .object, entity: scope.entity), object: scope)
    }

    /// `@count`, `@sum`, `@avg`, `@min`, `@max` (or `count:` …) over a collection: a scalar subquery.
    mutating func aggregate(_ name: String, _ c: Collection, _ context: String) throws -> Scalar {
        let value = c.value
        switch name {
        case "@count", "count:":
            return Scalar(sql: "(" + closeFrame(c.frame, select: SQL("count(*)")) + ")", kind: .number, type: .integer64)
        case "@sum", "sum:", "@avg", "average:":
            guard value.kind == .number || value.kind == nil else {
                frames[c.frame] = nil
                throw NimbusError(.typeMismatch, "\(name) needs numbers, but \(context) holds \(value.kind!.rawValue) values")
            }
            let isSum = name.contains("sum")
            let select = isSum ? "COALESCE(sum(" + value.sql + "), 0)" : "avg(" + value.sql + ")"
            return Scalar(sql: "(" + closeFrame(c.frame, select: select) + ")", kind: .number, type: isSum ? value.type : .double)
        case "@min", "min:", "@max", "max:":
            guard value.kind != .object else {
                frames[c.frame] = nil
                throw NimbusError(.typeMismatch, "\(name) needs values to compare; \(context) holds objects")
            }
            let function = name.contains("min") ? "min(" : "max("
            return Scalar(sql: "(" + closeFrame(c.frame, select: function + value.sql + ")") + ")", kind: value.kind, type: value.type)
        default:
            frames[c.frame] = nil
            throw NimbusError(.invalidPredicate, "unknown collection operator \(name); use @count, @sum, @avg, @min or @max")
        }
    }
}
