import Foundation
import GRDB

extension PredicateSQLCompiler {
    /// A predicate as a SQL condition that is never NULL where the evaluator says false.
    mutating func compile(_ predicate: QueryPredicate) throws -> SQL {
        switch predicate {
        case .truePredicate: return SQL("1")
        case .falsePredicate: return SQL("0")
        case let .and(parts):
            guard !parts.isEmpty else { return SQL("1") }
            return "(" + SQL.joined(try parts.map { try compile($0) }, " AND ") + ")"
        case let .or(parts):
            guard !parts.isEmpty else { return SQL("0") }
            return "(" + SQL.joined(try parts.map { try compile($0) }, " OR ") + ")"
        case let .not(inner):
            return "NOT IFNULL(" + (try compile(inner)) + ", 0)"
        case let .comparison(c):
            return try comparison(c)
        }
    }

    mutating func comparison(_ c: QueryPredicate.Comparison) throws -> SQL {
        let context = "\(QueryPredicate.comparison(c))"
        let left = try operand(c.left)
        let right = try operand(c.right)
        if Self.isConstant(left), Self.isConstant(right) {
            return SQL(try PredicateEvaluator().evaluate(.comparison(c), on: .value(.null)) ? "1" : "0")
        }
        let op = c.op, options = c.options
        switch c.modifier {
        case .any, .all:
            let all = c.modifier == .all
            switch left {
            case let .collection(collection):
                return try exists(collection, all: all) { compiler, element in
                    try compiler.test(element, op, right, options, context)
                }
            case let .list(items):
                let parts = try items.map { try test($0, op, right, options, context) }
                guard !parts.isEmpty else { return SQL(all ? "1" : "0") }
                return "(" + SQL.joined(parts, all ? " AND " : " OR ") + ")"
            default:
                // A single value is a collection of one; nil is an empty collection.
                let single = try test(left, op, right, options, context)
                let value = try scalar(left, context).sql
                return all ? "(" + value + " IS NULL OR " + single + ")" : "(" + value + " IS NOT NULL AND " + single + ")"
            }
        case .direct:
            if op == .contains, case let .collection(collection) = left {
                return try exists(collection, all: false) { compiler, element in
                    try compiler.equality(element, right, negated: false, options, context)
                }
            }
            if op == .contains, case let .list(items) = left {
                return try test(right, .in, .list(items), options, context)
            }
            switch left {
            case let .collection(collection):
                // A to-many key path without ANY compares any of its elements.
                return try exists(collection, all: false) { compiler, element in
                    try compiler.test(element, op, right, options, context)
                }
            case let .list(items) where op != .in:
                let parts = try items.map { try test($0, op, right, options, context) }
                return parts.isEmpty ? SQL("0") : "(" + SQL.joined(parts, " OR ") + ")"
            default:
                return try test(left, op, right, options, context)
            }
        }
    }

    /// `EXISTS` over a collection's elements (`NOT EXISTS … NOT` for `ALL`).
    mutating func exists(_ collection: Collection, all: Bool, _ test: (inout Self, Operand) throws -> SQL) throws -> SQL {
        let condition = try test(&self, .scalar(collection.value))
        if all {
            return "NOT EXISTS (" + closeFrame(collection.frame, select: SQL("1"), extra: "NOT IFNULL(" + condition + ", 0)") + ")"
        }
        return "EXISTS (" + closeFrame(collection.frame, select: SQL("1"), extra: condition) + ")"
    }

    /// One comparison of a single left value.
    mutating func test(_ left: Operand, _ op: QueryPredicate.Comparison.Operator, _ right: Operand,
                       _ options: QueryPredicate.Comparison.Options, _ context: String) throws -> SQL {
        if case let .list(lefts) = left, op == .in {
            // `{a, b} IN list`: any element of the left is in the right.
            let parts = try lefts.map { try test($0, .in, right, options, context) }
            return parts.isEmpty ? SQL("0") : "(" + SQL.joined(parts, " OR ") + ")"
        }
        switch op {
        case .between:
            guard case let .list(bounds) = right, bounds.count == 2 else {
                throw NimbusError(.typeMismatch, "BETWEEN needs two bounds, as in {1, 10}: \(context)")
            }
            return "(" + (try test(left, .greaterThanOrEqual, bounds[0], options, context)) + " AND "
                + (try test(left, .lessThanOrEqual, bounds[1], options, context)) + ")"
        case .in:
            switch right {
            case let .list(items): return try membership(left, items, options, context)
            case let .collection(collection):
                return try exists(collection, all: false) { compiler, element in
                    try compiler.equality(element, left, negated: false, options, context)
                }
            default: return try stringOperation(.contains, right, left, options, context)
            }
        case .equal, .notEqual:
            return try equality(left, right, negated: op == .notEqual, options, context)
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            if case .constant(.null) = left { return SQL("0") }
            if case .constant(.null) = right { return SQL("0") }
            var (l, r) = (left, right)
            try foldPair(&l, &r, options)
            let (a, b) = try coercedPair(&l, &r, context)
            if a.kind == .object || b.kind == .object {
                throw NimbusError(.typeMismatch, "objects have no order; compare one of their attributes: \(context)")
            }
            return "(" + a.sql + " \(op.rawValue) " + b.sql + ")"
        case .contains, .beginsWith, .endsWith, .like, .matches:
            return try stringOperation(op, left, right, options, context)
        }
    }

    /// `==` and `!=` with `IS`/`IS NOT`, so nil equals only nil.
    mutating func equality(_ left: Operand, _ right: Operand, negated: Bool,
                           _ options: QueryPredicate.Comparison.Options, _ context: String) throws -> SQL {
        if case .constant(.null) = right { return try scalar(left, context).sql + (negated ? " IS NOT NULL" : " IS NULL") }
        if case .constant(.null) = left { return try scalar(right, context).sql + (negated ? " IS NOT NULL" : " IS NULL") }
        if let fast = textEqualityFastPath(left, right, negated: negated, options) { return fast }
        var (l, r) = (left, right)
        try foldPair(&l, &r, options)
        let (a, b) = try coercedPair(&l, &r, context)
        return "(" + a.sql + (negated ? " IS NOT " : " IS ") + b.sql + ")"
    }

    /// `x IN {a, b, …}`; nil in the list matches a nil `x`.
    mutating func membership(_ left: Operand, _ items: [Operand], _ options: QueryPredicate.Comparison.Options,
                             _ context: String) throws -> SQL {
        guard !items.isEmpty else { return SQL("0") }
        guard items.allSatisfy({ if case .constant = $0 { true } else { false } }) else {
            let parts = try items.map { try equality(left, $0, negated: false, options, context) }
            return "(" + SQL.joined(parts, " OR ") + ")"
        }
        let values = items.compactMap { if case let .constant(v) = $0 { v } else { nil } }
        var l = left
        let bits = PredicateSemantics.foldBits(options)
        let target = try scalar(l, context)
        if bits != 0, target.kind == .string {
            l = .scalar(Scalar(sql: "\(SQLFunctions.fold)(" + target.sql + ", \(bits))", kind: .string, type: .string))
        }
        let value = try scalar(l, context)
        var bound: [SQL] = []
        for item in values where !item.isNull {
            var item = item
            if bits != 0, value.kind == .string, case let .string(s) = item { item = .string(PredicateSemantics.fold(s, options)) }
            bound.append(bind(try coerce(item, to: value, context)))
        }
        let hasNull = values.contains(where: \.isNull)
        if bound.isEmpty { return value.sql + " IS NULL" }
        let list = value.sql + " IN (" + SQL.joined(bound, ", ") + ")"
        return hasNull ? "(" + list + " OR " + value.sql + " IS NULL)" : list
    }

    /// Folds both sides for `[c]`/`[d]` when both are strings.
    mutating func foldPair(_ left: inout Operand, _ right: inout Operand, _ options: QueryPredicate.Comparison.Options) throws {
        let bits = PredicateSemantics.foldBits(options)
        guard bits != 0, isString(left), isString(right) else { return }
        func fold(_ operand: Operand) -> Operand {
            switch operand {
            case let .constant(.string(s)): return .constant(.string(PredicateSemantics.fold(s, options)))
            case let .scalar(s): return .scalar(Scalar(sql: "\(SQLFunctions.fold)(" + s.sql + ", \(bits))", kind: .string, type: .string))
            default: return operand
            }
        }
        left = fold(left)
        right = fold(right)
    }

    func isString(_ operand: Operand) -> Bool {
        switch operand {
        case .constant(.string): true
        case let .scalar(s): s.kind == .string || s.kind == .url || s.kind == nil
        default: false
        }
    }

    /// `BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE`, `MATCHES` on code points; an empty
    /// needle matches nothing, nil matches nothing.
    mutating func stringOperation(_ op: QueryPredicate.Comparison.Operator, _ left: Operand, _ right: Operand,
                                  _ options: QueryPredicate.Comparison.Options, _ context: String) throws -> SQL {
        if case .constant(.null) = left { return SQL("0") }
        if case .constant(.null) = right { return SQL("0") }
        if let operation = TextFunctions.Operation(op), let fast = textFastPath(operation, left, right, options) { return fast }
        var (l, r) = (left, right)
        let foldOptions = op == .matches ? options.intersection(.diacriticInsensitive) : options
        try foldPair(&l, &r, foldOptions)
        let text = try stringOperand(&l, op, context)
        let needle = try stringOperand(&r, op, context)
        if case let .constant(.string(n)) = r {
            if n.isEmpty, op != .like, op != .matches { return SQL("0") }
            let length = n.unicodeScalars.count
            switch op {
            case .beginsWith:
                // Without folding, a prefix is a range of the BINARY order, which an index can search.
                if PredicateSemantics.foldBits(foldOptions) == 0, case .scalar = l {
                    guard let upper = Self.prefixUpperBound(n) else { return "(" + text.sql + " >= " + needle.sql + ")" }
                    return "(" + text.sql + " >= " + needle.sql + " AND " + text.sql + " < " + bind(upper.databaseValue) + ")"
                }
                return "(substr(" + text.sql + ", 1, \(length)) = " + needle.sql + ")"
            case .endsWith: return "(substr(" + text.sql + ", -\(length)) = " + needle.sql + ")"
            case .contains: return "(instr(" + text.sql + ", " + needle.sql + ") > 0)"
            case .matches: _ = try PredicateSemantics.matches("", n, caseInsensitive: false)
            default: break
            }
        }
        switch op {
        case .beginsWith: return "\(SQLFunctions.beginsWith)(" + text.sql + ", " + needle.sql + ")"
        case .endsWith: return "\(SQLFunctions.endsWith)(" + text.sql + ", " + needle.sql + ")"
        case .contains: return "\(SQLFunctions.contains)(" + text.sql + ", " + needle.sql + ")"
        case .like: return "\(SQLFunctions.like)(" + text.sql + ", " + needle.sql + ")"
        default:
            let ci = options.contains(.caseInsensitive) ? 1 : 0
            return "\(SQLFunctions.matches)(" + text.sql + ", " + needle.sql + ", \(ci))"
        }
    }

    /// The least string greater than every string that starts with `prefix` (its last code
    /// point incremented), or nil when there is none.
    static func prefixUpperBound(_ prefix: String) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            var next = last.value + 1
            if next == 0xD800 { next = 0xE000 }
            if let scalar = Unicode.Scalar(next) {
                scalars.append(scalar)
                return String(String.UnicodeScalarView(scalars))
            }
        }
        return nil
    }

    private mutating func stringOperand(_ operand: inout Operand, _ op: QueryPredicate.Comparison.Operator, _ context: String) throws -> Scalar {
        // A URI attribute's column holds its text: string operators apply to it.
        if case let .constant(.url(url)) = operand { operand = .constant(.string(url.absoluteString)) }
        if case let .scalar(s) = operand, s.kind == .url { operand = .scalar(Scalar(sql: s.sql, kind: .string, type: .string)) }
        if case let .constant(value) = operand {
            guard case .string = value else {
                throw NimbusError(.typeMismatch, "\(op.rawValue) needs strings, not \(PredicateFormatter.format(value)), in \(context)")
            }
        }
        let value = try scalar(operand, context)
        guard value.kind == .string || value.kind == nil else {
            throw NimbusError(.typeMismatch, "\(op.rawValue) needs strings, not \(value.kind!.rawValue) values, in \(context)")
        }
        return value
    }
}
