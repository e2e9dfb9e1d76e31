import Foundation
import GRDB

extension PredicateSQLCompiler {
    /// SQL for the arithmetic and string functions of `NSExpression`. Each has the meaning
    /// of ``PredicateEvaluator``'s version (integer arithmetic stays integer, division by
    /// zero is nil, `lowercase:` is Swift's `lowercased()` through `NIMBUS_LOWER`).
    mutating func function(_ name: String, _ arguments: [QueryExpression]) throws -> Operand {
        let context = "\(QueryExpression.function(name, arguments))"
        try PredicateEvaluator.checkArity(name, arguments.count)
        if name == "now" { return .constant(.date(Date())) }
        if name == "noindex:" || name == "indexed:by:" { return try indexHint(name, arguments, context) }
        var operands = try arguments.map { try operand($0) }
        // Functions of constants only: computed now, with the evaluator's rules.
        if operands.allSatisfy(Self.isConstant) {
            let value = try PredicateEvaluator().value(.function(name, arguments), on: .value(.null))
            if case let .value(v) = value { return .constant(v) }
        }
        switch name {
        case "count:", "sum:", "average:", "min:", "max:":
            guard operands.count == 1 else { throw NimbusError(.invalidPredicate, "\(name) takes one collection in \(context)") }
            switch operands[0] {
            case let .collection(c): return .scalar(try aggregate(name, c, context))
            case .list:
                throw NimbusError(.unsupported, "\(name) of an array with key paths is not supported in SQL: \(context)")
            default:
                guard allowsGroupAggregates else {
                    throw NimbusError(.invalidPredicate, "\(name) of a single value is an aggregate over groups; use it in propertiesToFetch or havingPredicate, or apply it to a to-many key path: \(context)")
                }
                let value = try scalar(operands[0], context)
                let sql: SQL
                switch name {
                case "count:": sql = "count(" + value.sql + ")"
                case "sum:": sql = "sum(" + value.sql + ")"
                case "average:": sql = "avg(" + value.sql + ")"
                case "min:": sql = "min(" + value.sql + ")"
                default: sql = "max(" + value.sql + ")"
                }
                // A sum of integers may pass the attribute's range (a sum of integer16 values is
                // read as integer64, never truncated).
                let type: AttributeType? = name == "count:" || (name == "sum:" && value.type?.isInteger == true) ? .integer64
                    : name == "average:" ? .double : value.type
                return .scalar(Scalar(sql: sql, kind: name == "count:" ? .number : value.kind, type: type))
            }
        case "lowercase:", "uppercase:", "length:", "canonical:":
            let value = try typed(&operands[0], .string, context)
            if name == "canonical:" {
                return .scalar(Scalar(sql: "\(SQLFunctions.fold)(" + value.sql + ", 3)", kind: .string, type: .string))
            }
            if name == "length:" { return .scalar(Scalar(sql: "length(" + value.sql + ")", kind: .number, type: .integer64)) }
            let function = name == "lowercase:" ? SQLFunctions.lower : SQLFunctions.upper
            return .scalar(Scalar(sql: "\(function)(" + value.sql + ")", kind: .string, type: .string))
        case "abs:", "sqrt:", "log:", "ln:", "exp:", "floor:", "ceiling:", "trunc:":
            let value = try typed(&operands[0], .number, context)
            let sqlName = ["abs:": "abs", "sqrt:": "sqrt", "log:": "log10", "ln:": "ln", "exp:": "exp",
                           "floor:": "floor", "ceiling:": "ceil", "trunc:": "trunc"][name]!
            // SQLite's floor/ceil/trunc keep integers integral; the evaluator gives doubles: same numbers.
            let sql = name == "abs:" ? "abs(" + value.sql + ")" : "(" + sqlName + "(" + value.sql + ") + 0.0)"
            return .scalar(Scalar(sql: sql, kind: .number, type: name == "abs:" ? value.type : .double))
        case "add:to:", "from:subtract:", "multiply:by:", "divide:by:", "modulus:by:", "raise:toPower:":
            guard operands.count == 2 else { throw NimbusError(.invalidPredicate, "\(name) takes two arguments in \(context)") }
            let a = try typed(&operands[0], .number, context)
            let b = try typed(&operands[1], .number, context)
            if name == "raise:toPower:" {
                return .scalar(Scalar(sql: "pow(" + a.sql + ", " + b.sql + ")", kind: .number, type: .double))
            }
            let symbol = ["add:to:": "+", "from:subtract:": "-", "multiply:by:": "*", "divide:by:": "/", "modulus:by:": "%"][name]!
            let isInteger = (a.type?.isInteger ?? false) && (b.type?.isInteger ?? false)
            return .scalar(Scalar(sql: "(" + a.sql + " \(symbol) " + b.sql + ")", kind: .number,
                                  type: symbol == "%" || isInteger ? .integer64 : .double))
        case _ where PredicateBitwise.names.contains(name):
            let v = try operands.indices.map { try typed(&operands[$0], .number, context).sql }
            let sql: SQL = switch name {
            case "onesComplement:": "(~" + v[0] + ")"
            case "bitwiseAnd:with:": "(" + v[0] + " & " + v[1] + ")"
            case "bitwiseOr:with:": "(" + v[0] + " | " + v[1] + ")"
            // SQLite has no XOR; a ^ b = (a | b) - (a & b), exact in 64 bits.
            case "bitwiseXor:with:": "((" + v[0] + " | " + v[1] + ") - (" + v[0] + " & " + v[1] + "))"
            case "leftshift:by:": "(" + v[0] + " << " + v[1] + ")"
            default: "(" + v[0] + " >> " + v[1] + ")"
            }
            return .scalar(Scalar(sql: sql, kind: .number, type: .integer64))
        case "objectFrom:withIndex:":
            throw NimbusError(.unsupported, "an index into a to-many relationship has no order in SQL; use [SIZE], @count or SUBQUERY, or evaluate in memory: \(context)")
        default:
            throw NimbusError(.unsupported, "function \(name) is not supported in SQL: \(context)")
        }
    }

    static func isConstant(_ operand: Operand) -> Bool {
        switch operand {
        case .constant: true
        case let .list(items): items.allSatisfy(isConstant)
        default: false
        }
    }

    /// An operand as a scalar of a kind; constants are coerced, other kinds rejected.
    mutating func typed(_ operand: inout Operand, _ kind: Kind, _ context: String) throws -> Scalar {
        if case let .constant(value) = operand {
            if value.isNull { return Scalar(sql: bind(.null), kind: kind) }
            return Scalar(sql: bind(try coerce(value, to: Scalar(sql: SQL(""), kind: kind), context)), kind: kind,
                          type: kind == .number ? Self.numberType(value) : .string)
        }
        let value = try scalar(operand, context)
        guard value.kind == kind || value.kind == nil else {
            throw NimbusError(.typeMismatch, "\(context) needs \(kind.rawValue) values, not \(value.kind!.rawValue)")
        }
        return value
    }

    static func numberType(_ value: PropertyValue) -> AttributeType {
        switch value {
        case .integer, .bool: .integer64
        default: .double
        }
    }

    // MARK: Coercion

    /// The stored form of a constant compared with a scalar of the given kind.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/typeMismatch``.
    func coerce(_ value: PropertyValue, to target: Scalar, _ context: String) throws -> DatabaseValue {
        func mismatch() -> NimbusError {
            NimbusError(.typeMismatch, "cannot compare \(target.kind?.rawValue ?? "") values with \(PredicateFormatter.format(value)) (\(Kind(value)?.rawValue ?? "a value")) in \(context)")
        }
        guard let kind = target.kind, !value.isNull else { return value.databaseValue }
        switch (kind, value) {
        case (.number, .integer), (.number, .double), (.number, .decimal), (.number, .bool), (.number, .date),
             (.date, .date), (.date, .integer), (.date, .double), (.date, .decimal),
             (.string, .string), (.url, .url), (.url, .string), (.uuid, .uuid), (.data, .data):
            return value.databaseValue
        case let (.string, .url(url)): return url.absoluteString.databaseValue
        case (.data, _) where target.type == .transformable:
            // A transformable holds the encoded value: compare with the constant encoded alike.
            guard let encoded = TransformableConstant.storedForm(of: value) else { throw mismatch() }
            return encoded.databaseValue
        case let (.uuid, .string(text)):
            guard let uuid = UUID(uuidString: text) else { throw mismatch() }
            return PropertyValue.uuid(uuid).databaseValue
        case let (.object, .object(id)):
            // Row keys are positive: an object of another hierarchy (or an unsaved one) matches no row.
            if let entity = target.entity, entity.rootEntityNumber != id.entity.rootEntityNumber { return (-1 as Int64).databaseValue }
            return (id.isTemporaryID ? -1 : id.primaryKey).databaseValue
        default:
            throw mismatch()
        }
    }

    /// Whether two scalar kinds can be compared.
    static func compatible(_ a: Kind?, _ b: Kind?) -> Bool {
        guard let a, let b else { return true }
        if a == b { return true }
        let pair = Set([a, b])
        return pair == [.number, .date] || pair == [.string, .url]
    }

    /// Both sides of a comparison as scalars, each constant coerced to the other side's kind.
    mutating func coercedPair(_ left: inout Operand, _ right: inout Operand, _ context: String) throws -> (Scalar, Scalar) {
        switch (left, right) {
        case let (.constant(a), .constant(b)):
            return (try scalar(.constant(a), context), try scalar(.constant(b), context))
        case let (.constant(a), _):
            let b = try scalar(right, context)
            return (Scalar(sql: bind(try coerce(a, to: b, context)), kind: b.kind ?? Kind(a), type: b.type, entity: b.entity), b)
        case let (_, .constant(b)):
            let a = try scalar(left, context)
            return (a, Scalar(sql: bind(try coerce(b, to: a, context)), kind: a.kind ?? Kind(b), type: a.type, entity: a.entity))
        default:
            let a = try scalar(left, context), b = try scalar(right, context)
            guard Self.compatible(a.kind, b.kind) else {
                throw NimbusError(.typeMismatch, "cannot compare \(a.kind!.rawValue) with \(b.kind!.rawValue) values in \(context)")
            }
            return (a, b)
        }
    }
}

extension PredicateSQLCompiler {
    /// `noindex:(x)`: SQLite's unary `+` before the value, which keeps the planner from using an
    /// index on it (the value and its comparisons are unchanged). `indexed:by:(x, 'name')`:
    /// the value itself, once `name` is checked to be one of the entity's fetch indexes; the
    /// planner picks among the indexes itself (R-trees are used whenever they apply).
    mutating func indexHint(_ name: String, _ arguments: [QueryExpression], _ context: String) throws -> Operand {
        if name == "indexed:by:" {
            guard arguments.count == 2, case let .constant(.string(index)) = arguments[1] else {
                throw NimbusError(.invalidPredicate, "indexed:by: takes a value and a quoted fetch index name: \(context)")
            }
            let known = entity.fetchIndexes.map(\.name)
            guard known.contains(index) else {
                throw NimbusError(.invalidPredicate, "\(entity.name) has no fetch index \(index) (its fetch indexes: "
                    + (known.isEmpty ? "none" : known.joined(separator: ", ")) + "): \(context)")
            }
            return try operand(arguments[0])
        }
        switch try operand(arguments[0]) {
        case var .scalar(value):
            value.sql = "(+" + value.sql + ")"
            return .scalar(value)
        case let other: return other
        }
    }
}
