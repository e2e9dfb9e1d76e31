import Foundation
import GRDB

/// Compiles predicates, sort descriptors and expressions to SQL over an entity's table,
/// aliased `t0`, with the meaning the in-memory evaluator gives them.
///
/// - To-one key paths become `LEFT JOIN`s (one per path, reused), listed in ``joins``.
/// - To-many key paths (`ANY`/`ALL`/`NONE`, `@count`, `@sum`, …, `SUBQUERY`) become
///   `EXISTS` and correlated subqueries over the destination or join table.
/// - Constants are coerced to the compared attribute's type; `age == "x"` throws
///   ``NimbusError/Code-swift.struct/typeMismatch``, an unknown key
///   ``NimbusError/Code-swift.struct/unknownProperty``.
/// - SQL's three-valued logic is brought back to two values: `==`/`!=` compile to
///   `IS`/`IS NOT` and `NOT p` to `NOT IFNULL(p, 0)`, so `x != 5` holds for a nil `x`.
///
/// ``condition(_:)`` binds constants as `?` placeholders, appended to ``arguments`` in
/// the order they appear; ``expression(_:)`` and ``orderBy(_:)`` inline constants as SQL
/// literals and never add arguments, so select lists and `ORDER BY` can be placed
/// anywhere around the `WHERE` clause. For example:
///
/// Comparisons that bound attributes of an R-tree fetch index also narrow the rows through
/// it (``rTreeCondition(_:)``).
///
/// ```swift
/// var compiler = PredicateSQLCompiler(entity: book, schema: model.schema)
/// let sql = try compiler.condition(QueryPredicate(format: "author.name BEGINSWITH[c] 'a'"))
/// // substr(NIMBUS_FOLD(t1.ZNAME, 1), 1, 1) = ?   with joins:
/// // LEFT JOIN ZPERSON t1 ON t1.Z_PK = t0.ZAUTHOR
/// ```
struct PredicateSQLCompiler {
    let entity: EntityDescription
    let schema: StoreSchema
    /// Keeps the model alive: entities find relationship destinations through it.
    let model: ManagedObjectModel?
    /// Values for the `?` placeholders of the conditions compiled so far, in order.
    var arguments: [DatabaseValue] = []

    /// A piece of SQL with the values of its placeholders.
    struct SQL {
        var text: String
        var arguments: [DatabaseValue] = []

        init(_ text: String, _ arguments: [DatabaseValue] = []) {
            self.text = text
            self.arguments = arguments
        }

        static func + (a: SQL, b: SQL) -> SQL { SQL(a.text + b.text, a.arguments + b.arguments) }
        static func + (a: SQL, b: String) -> SQL { SQL(a.text + b, a.arguments) }
        static func + (a: String, b: SQL) -> SQL { SQL(a + b.text, b.arguments) }

        static func joined(_ parts: [SQL], _ separator: String) -> SQL {
            SQL(parts.map(\.text).joined(separator: separator), parts.flatMap(\.arguments))
        }
    }

    /// An entity's row in the query, under an alias.
    struct Scope {
        var entity: EntityDescription
        var alias: String
    }

    /// The tables of one (sub)query: the main query (frame 0, whose joins are ``joins``)
    /// or a correlated subquery over a to-many relationship.
    struct Frame {
        /// `FROM` items of a subquery (empty for the main query).
        var base = ""
        /// `JOIN` clauses, in order.
        var clauses: [String] = []
        /// Aliases this frame introduces: joins from them belong here.
        var aliases: Set<String> = []
        /// Join alias by "alias.relationship", so each path is joined once.
        var joinAliases: [String: String] = [:]
        /// `WHERE` terms of a subquery: correlation, entity filters, subquery predicates.
        var conditions: [SQL] = []
    }

    var frames: [Int: Frame]
    var nextFrame = 1
    var aliasCount = 0
    /// Subquery variables in scope.
    var variables: [String: Scope] = [:]
    /// Whether constants are inlined as literals (expressions, orderings) or bound.
    var inlinesConstants = false
    /// Whether `count:`/`sum:`/… of a single value compile to SQL aggregates (select lists, having).
    var allowsGroupAggregates = false
    /// Whether ``condition(_:)`` narrows rows through the entity's R-tree fetch indexes.
    var usesRTrees = true
    /// R-trees the store lacks (see `SQLiteDatabase.unavailableRTrees`).
    var unavailableRTrees: Set<String> = []
    /// Names of fetched properties and expressions, usable as one-component key paths in a
    /// `HAVING` condition: the SQL of each.
    var resultAliases: [String: String] = [:]

    /// `LEFT JOIN …` clauses the compiled SQL needs, after `FROM <table> t0`.
    var joins: [String] { frames[0]!.clauses }

    /// The alias of the entity's table: `t0`, or the table name for statements that cannot
    /// alias it (`UPDATE ZPERSON SET … = ZPERSON.ZAGE + 1`).
    let mainAlias: String

    var mainScope: Scope { Scope(entity: entity, alias: mainAlias) }

    /// Creates a compiler for SQL over an entity's table aliased `alias` (`t0` by default).
    init(entity: EntityDescription, schema: StoreSchema, alias: String = "t0") {
        self.entity = entity
        self.schema = schema
        self.model = entity.managedObjectModel
        self.mainAlias = alias
        self.frames = [0: Frame(aliases: [alias])]
    }

    /// Compiles a predicate to a `WHERE` expression; its constants are appended to ``arguments``.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/unknownProperty``,
    ///   ``NimbusError/Code-swift.struct/typeMismatch``,
    ///   ``NimbusError/Code-swift.struct/invalidPredicate``.
    mutating func condition(_ predicate: QueryPredicate) throws -> String {
        inlinesConstants = false
        allowsGroupAggregates = false
        var sql = try compile(predicate)
        if let rTree = rTreeCondition(predicate) { sql = rTree + " AND " + sql }
        arguments += sql.arguments
        return sql.text
    }

    /// Compiles an expression for a select list, `GROUP BY` or `HAVING`. Constants are
    /// inlined; `count:(x)`, `sum:(x)`, … of a single value are SQL aggregates.
    mutating func expression(_ expression: QueryExpression) throws -> (sql: String, type: AttributeType?) {
        inlinesConstants = true
        allowsGroupAggregates = true
        defer { inlinesConstants = false; allowsGroupAggregates = false }
        let scalar = try self.scalar(operand(expression), "\(expression)")
        return (scalar.sql.text, scalar.type)
    }

    /// Compiles sort descriptors to an `ORDER BY` list. NULLs sort first ascending.
    mutating func orderBy(_ sorts: [FetchSortDescriptor]) throws -> String {
        inlinesConstants = true
        defer { inlinesConstants = false }
        return try sorts.map { sort in
            let path = sort.keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            let scalar = try self.scalar(keyPath(path, from: mainScope, frame: nil), sort.keyPath)
            var sql = scalar.sql.text
            if scalar.kind == .string || scalar.kind == nil {
                switch sort.comparison {
                case .binary: break
                case .caseInsensitive: sql += " COLLATE \(SQLFunctions.caseInsensitiveCollation)"
                case .localizedStandard: sql += " COLLATE \(SQLFunctions.localizedCollation)"
                }
            }
            return sql + (sort.ascending ? "" : " DESC")
        }.joined(separator: ", ")
    }

    // MARK: Aliases, joins and frames

    mutating func newAlias() -> String {
        aliasCount += 1
        return "t\(aliasCount)"
    }

    func frame(owning alias: String) -> Int {
        frames.first { $0.value.aliases.contains(alias) }?.key ?? 0
    }

    /// A `LEFT JOIN` of a to-one destination, in the frame that owns `alias`, reused per path.
    mutating func joinToOne(from scope: Scope, relationship: String, column: String, destination: EntityDescription) -> Scope {
        let owner = frame(owning: scope.alias)
        let key = "\(scope.alias).\(relationship)"
        if let existing = frames[owner]!.joinAliases[key] { return Scope(entity: destination, alias: existing) }
        let alias = newAlias()
        let table = schema.mapping(for: destination).table
        frames[owner]!.clauses.append("LEFT JOIN \(table.quotedDatabaseIdentifier) \(alias) ON \(alias).Z_PK = \(scope.alias).\(column.quotedDatabaseIdentifier)")
        frames[owner]!.aliases.insert(alias)
        frames[owner]!.joinAliases[key] = alias
        return Scope(entity: destination, alias: alias)
    }

    mutating func openFrame() -> Int {
        let id = nextFrame
        nextFrame += 1
        frames[id] = Frame()
        return id
    }

    /// Adds a to-many hop to a subquery frame: the first hop correlates with the outer row.
    mutating func joinToMany(frame id: Int, from scope: Scope, index: Int, relationship: RelationshipDescription) throws -> Scope {
        guard let destination = scope.entity.destination(of: relationship) else {
            throw NimbusError(.invalidModel, "\(scope.entity.name).\(relationship.name) has no destination entity")
        }
        let alias = newAlias()
        let table = schema.mapping(for: destination).table
        var frame = frames[id]!
        let first = frame.base.isEmpty
        switch schema.mapping(for: scope.entity).storage[index] {
        case let .inverseForeignKey(_, column, _, _):
            if first {
                frame.base = "\(table.quotedDatabaseIdentifier) \(alias)"
                frame.conditions.append(SQL("\(alias).\(column.quotedDatabaseIdentifier) = \(scope.alias).Z_PK"))
            } else {
                frame.clauses.append("JOIN \(table.quotedDatabaseIdentifier) \(alias) ON \(alias).\(column.quotedDatabaseIdentifier) = \(scope.alias).Z_PK")
            }
        case let .joinTable(join, sourceColumn, destinationColumn, _):
            let link = newAlias()
            if first {
                frame.base = "\(join.name.quotedDatabaseIdentifier) \(link) JOIN \(table.quotedDatabaseIdentifier) \(alias) ON \(alias).Z_PK = \(link).\(destinationColumn.quotedDatabaseIdentifier)"
                frame.conditions.append(SQL("\(link).\(sourceColumn.quotedDatabaseIdentifier) = \(scope.alias).Z_PK"))
            } else {
                frame.clauses.append("JOIN \(join.name.quotedDatabaseIdentifier) \(link) ON \(link).\(sourceColumn.quotedDatabaseIdentifier) = \(scope.alias).Z_PK")
                frame.clauses.append("JOIN \(table.quotedDatabaseIdentifier) \(alias) ON \(alias).Z_PK = \(link).\(destinationColumn.quotedDatabaseIdentifier)")
            }
            frame.aliases.insert(link)
        default:
            throw NimbusError(.unsupported, "\(scope.entity.name).\(relationship.name) is not stored, so it cannot be used in a fetch")
        }
        if destination.superentity != nil {
            frame.conditions.append(SQL("\(alias).Z_ENT IN (\(destination.entityNumbersInHierarchy.map(String.init).joined(separator: ", ")))"))
        }
        frame.aliases.insert(alias)
        frames[id] = frame
        return Scope(entity: destination, alias: alias)
    }

    /// Closes a subquery frame: `SELECT <what> FROM … WHERE …`.
    mutating func closeFrame(_ id: Int, select what: SQL, extra: SQL? = nil) -> SQL {
        let frame = frames.removeValue(forKey: id)!
        var sql = "SELECT " + what + " FROM \(frame.base)"
        for clause in frame.clauses { sql = sql + " " + clause }
        var conditions = frame.conditions
        if let extra { conditions.append(extra) }
        if !conditions.isEmpty { sql = sql + " WHERE " + SQL.joined(conditions.map { "(" + $0 + ")" }, " AND ") }
        return sql
    }

    // MARK: Constants

    /// A value as a placeholder, or as a literal when inlining.
    func bind(_ value: DatabaseValue) -> SQL {
        guard inlinesConstants else { return SQL("?", [value]) }
        return SQL(Self.literal(value))
    }

    static func literal(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return "NULL"
        case let .int64(v): return String(v)
        case let .double(v):
            if v.isNaN { return "NULL" }
            if v.isInfinite { return v > 0 ? "9e999" : "-9e999" }
            let text = String(v)
            return text.contains(".") || text.contains("e") ? text : text + ".0"
        case let .string(s): return "'" + s.replacingOccurrences(of: "'", with: "''") + "'"
        case let .blob(data): return "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }
}
