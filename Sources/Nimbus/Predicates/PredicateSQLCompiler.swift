import GRDB

/// Compiles predicates, sort descriptors and expressions to SQL over an entity's table
/// (aliased `t0`). This first version covers comparisons of an entity's own attributes
/// with constants, AND/OR/NOT and TRUE/FALSE; the full grammar replaces it.
struct PredicateSQLCompiler {
    let entity: EntityDescription
    let schema: StoreSchema
    var arguments: [DatabaseValue] = []
    var joins: [String] = []

    init(entity: EntityDescription, schema: StoreSchema) {
        self.entity = entity
        self.schema = schema
    }

    mutating func condition(_ predicate: QueryPredicate) throws -> String {
        switch predicate {
        case .truePredicate: return "1"
        case .falsePredicate: return "0"
        case let .and(parts): return "(" + (try parts.map { try condition($0) }).joined(separator: " AND ") + ")"
        case let .or(parts): return "(" + (try parts.map { try condition($0) }).joined(separator: " OR ") + ")"
        case let .not(part): return "NOT (" + (try condition(part)) + ")"
        case let .comparison(c):
            let (left, type) = try expression(c.left)
            guard case let .constant(value) = c.right else {
                throw NimbusError(.unsupported, "only comparisons with constants are supported yet")
            }
            let coerced = try type.map { try PropertyValue(value.anyValue, for: $0) } ?? value
            arguments.append(coerced.databaseValue)
            switch c.op {
            case .equal: return "\(left) IS ?"
            case .notEqual: return "\(left) IS NOT ?"
            case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual: return "\(left) \(c.op.rawValue) ?"
            default: throw NimbusError(.unsupported, "operator \(c.op.rawValue) is not supported yet")
            }
        }
    }

    mutating func orderBy(_ sorts: [FetchSortDescriptor]) throws -> String {
        try sorts.map { sort in
            let (sql, _) = try expression(.keyPath([sort.keyPath]))
            return sql + (sort.ascending ? "" : " DESC")
        }.joined(separator: ", ")
    }

    mutating func expression(_ expression: QueryExpression) throws -> (sql: String, type: AttributeType?) {
        switch expression {
        case let .keyPath(components) where components.count == 1:
            guard let index = entity.propertyIndexes[components[0]], let attribute = entity.properties[index].attribute,
                  case let .column(column) = schema.mapping(for: entity).storage[index] else {
                throw NimbusError(.unknownProperty, "\(entity.name) has no attribute \(components[0])")
            }
            return ("t0.\(column)", attribute.type)
        case let .constant(value):
            arguments.append(value.databaseValue)
            return ("?", nil)
        default:
            throw NimbusError(.unsupported, "expression \(expression) is not supported yet")
        }
    }
}

extension QueryPredicate {
    /// Evaluates the predicate against an object's current values.
    func evaluate(with object: ManagedObject) throws -> Bool {
        switch self {
        case .truePredicate: return true
        case .falsePredicate: return false
        case let .and(parts): return try parts.allSatisfy { try $0.evaluate(with: object) }
        case let .or(parts): return try parts.contains { try $0.evaluate(with: object) }
        case let .not(part): return try !part.evaluate(with: object)
        case let .comparison(c):
            guard case let .keyPath(path) = c.left, path.count == 1, case let .constant(constant) = c.right,
                  let attribute = object.entity.attributesByName[path[0]] else {
                throw NimbusError(.unsupported, "only comparisons of attributes with constants are supported yet")
            }
            let value = object.primitiveValue(forKey: path[0]) ?? .null
            let other = try PropertyValue(constant.anyValue, for: attribute.type)
            switch c.op {
            case .equal: return value == other
            case .notEqual: return value != other
            default:
                guard let order = FetchSortDescriptor.compare(value, other), !value.isNull, !other.isNull else { return false }
                switch c.op {
                case .lessThan: return order < 0
                case .lessThanOrEqual: return order <= 0
                case .greaterThan: return order > 0
                default: return order >= 0
                }
            }
        }
    }
}

extension FetchSortDescriptor {
    /// Whether `a` comes before `b` under sort descriptors, ordering as SQLite does.
    static func areInIncreasingOrder(_ a: ManagedObject, _ b: ManagedObject, by sorts: [FetchSortDescriptor]) -> Bool {
        for sort in sorts {
            let left = a.primitiveValue(forKey: sort.keyPath) ?? .null
            let right = b.primitiveValue(forKey: sort.keyPath) ?? .null
            guard let order = compare(left, right), order != 0 else { continue }
            return sort.ascending ? order < 0 : order > 0
        }
        return false
    }

    /// Orders two values as SQLite does: NULL first, numbers, text, blobs.
    static func compare(_ a: PropertyValue, _ b: PropertyValue) -> Int? {
        switch (a.databaseValue.storage, b.databaseValue.storage) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case let (.int64(x), .int64(y)): return x < y ? -1 : (x > y ? 1 : 0)
        case let (.string(x), .string(y)): return x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : (x == y ? 0 : 1)
        default:
            let x = a.databaseValue.storage, y = b.databaseValue.storage
            func number(_ s: DatabaseValue.Storage) -> Double? {
                if case let .int64(v) = s { return Double(v) }
                if case let .double(v) = s { return v }
                return nil
            }
            if let p = number(x), let q = number(y) { return p < q ? -1 : (p > q ? 1 : 0) }
            return nil
        }
    }
}
