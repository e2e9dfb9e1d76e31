import Foundation
import GRDB

/// Reads an entity's rows (its sub-entities' included) into snapshots.
///
/// Rows of a hierarchy share one table; the reader selects every column of the table and
/// maps them, per concrete entity, to the entity's properties.
struct EntityReader: Sendable {
    enum PropertyRead: Sendable {
        case attribute(column: Int, type: AttributeType)
        case toOne(column: Int, entityColumn: Int?, destination: EntityDescription)
        case none
    }

    let entity: EntityDescription
    let table: String
    /// `t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.<every column of the table>`.
    let selectList: String
    /// By entity number - first entity number of the hierarchy.
    private let plans: [Int: [PropertyRead]]
    /// Column name to position in the select list.
    let columnPositions: [String: Int]

    init(entity: EntityDescription, schema: StoreSchema) {
        self.entity = entity
        let mapping = schema.mapping(for: entity)
        table = mapping.table
        let tableColumns = schema.tables.first { $0.name == mapping.table }!.columns.map(\.name)
        selectList = (["Z_PK", "Z_ENT", "Z_OPT"] + tableColumns).map { "t0." + $0 }.joined(separator: ", ")
        var positions: [String: Int] = [:]
        for (i, name) in (["Z_PK", "Z_ENT", "Z_OPT"] + tableColumns).enumerated() { positions[name] = i }
        columnPositions = positions
        var plans: [Int: [PropertyRead]] = [:]
        let model = entity.model!
        for number in entity.entityNumbersInHierarchy {
            guard let concrete = model.entity(number: number) else { continue }
            let concreteMapping = schema.mapping(for: concrete)
            plans[number] = concrete.properties.enumerated().map { index, property in
                switch (property, concreteMapping.storage[index]) {
                case let (.attribute(attribute), .column(column)):
                    return .attribute(column: positions[column]!, type: attribute.type)
                case let (.relationship(relationship), .foreignKey(column, entityColumn)):
                    return .toOne(column: positions[column]!, entityColumn: entityColumn.flatMap { positions[$0] },
                                  destination: model.entitiesByName[relationship.destinationEntityName]!)
                default:
                    return .none
                }
            }
        }
        self.plans = plans
    }

    /// Reads the current row of a statement into an ID and a snapshot.
    @inline(__always)
    func read(_ row: Row, storeIdentifier: String, model: ManagedObjectModel) -> (ManagedObjectID, RowSnapshot)? {
        let primaryKey: Int64 = row[0]
        let entityNumber: Int = row[1]
        guard let concrete = model.entity(number: entityNumber), let plan = plans[entityNumber] else { return nil }
        let version: Int64 = row.hasNull(atIndex: 2) ? 1 : row[2]
        var values = [PropertyValue](repeating: .null, count: plan.count)
        for (index, read) in plan.enumerated() {
            switch read {
            case let .attribute(column, type):
                values[index] = PropertyValue(row: row, index: column, type: type)
            case let .toOne(column, entityColumn, destination):
                guard !row.hasNull(atIndex: column) else { continue }
                var target = destination
                if let entityColumn, !row.hasNull(atIndex: entityColumn), let e = model.entity(number: row[entityColumn]) { target = e }
                values[index] = .object(ManagedObjectID(entity: target, storeIdentifier: storeIdentifier, primaryKey: row[column]))
            case .none:
                continue
            }
        }
        return (ManagedObjectID(entity: concrete, storeIdentifier: storeIdentifier, primaryKey: primaryKey),
                RowSnapshot(version: version, values: values))
    }

    /// The SQL condition selecting the entity's rows (and its sub-entities' when asked).
    func entityCondition(includesSubentities: Bool) -> String? {
        if includesSubentities {
            if entity.superentity == nil && entity.entityNumbersInHierarchy.count == 1 { return nil }
            if entity.entityNumbersInHierarchy.count == 1 { return "t0.Z_ENT = \(entity.entityNumber)" }
            return "t0.Z_ENT IN (\(entity.entityNumbersInHierarchy.map(String.init).joined(separator: ", ")))"
        }
        return "t0.Z_ENT = \(entity.entityNumber)"
    }
}
