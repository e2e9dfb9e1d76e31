import GRDB

extension StoreSchema {
    /// A B-tree index of a store: its name, table, columns (` DESC` suffixed when
    /// descending), and for unique and partial indexes their kind and `WHERE` clause.
    package struct Index: Sendable, Hashable {
        package var name: String
        package var table: String
        package var columns: [String]
        package var isUnique = false
        /// A `WHERE` clause over the table (partial indexes, uniqueness per hierarchy).
        package var condition: String?

        /// `CREATE [UNIQUE] INDEX "name" ON "table" ("A", "B" DESC) [WHERE …]`, as SQLite
        /// keeps it in `sqlite_master` (so an index whose SQL changed is recognised).
        package var createSQL: String {
            var sql = "CREATE \(isUnique ? "UNIQUE " : "")INDEX \(name.quotedDatabaseIdentifier) ON \(table.quotedDatabaseIdentifier) ("
                + columns.map(StoreSchema.quotedIndexColumn).joined(separator: ", ") + ")"
            if let condition { sql += " WHERE " + condition }
            return sql
        }
    }

    /// An R-tree fetch index: a SQLite `rtree` virtual table `Z_<ENTITY>_<INDEX>` with
    /// columns `id`, then `<COLUMN>_MIN`, `<COLUMN>_MAX` per element, holding the rows of the
    /// entity (and its sub-entities) and kept current by three triggers on its table.
    package struct RTree: Sendable, Hashable {
        package var name: String
        package var table: String
        package var entityName: String
        /// The entity numbers whose rows the R-tree holds.
        package var entityNumbers: [Int]
        /// Per dimension: the attribute and its column.
        package var dimensions: [Dimension]

        package struct Dimension: Sendable, Hashable {
            package var attribute: String
            package var column: String
            package var minColumn: String { column + "_MIN" }
            package var maxColumn: String { column + "_MAX" }
        }

        /// `CREATE VIRTUAL TABLE "Z_…" USING rtree(id, "ZA_MIN", "ZA_MAX", …)`.
        package var createSQL: String {
            "CREATE VIRTUAL TABLE \(name.quotedDatabaseIdentifier) USING rtree(id, "
                + dimensions.map { "\($0.minColumn.quotedDatabaseIdentifier), \($0.maxColumn.quotedDatabaseIdentifier)" }.joined(separator: ", ") + ")"
        }

        /// The triggers' names: `<name>_INSERT`, `<name>_UPDATE`, `<name>_DELETE`.
        package var triggerNames: [String] { ["_INSERT", "_UPDATE", "_DELETE"].map { name + $0 } }

        /// The rows to index: the entity's, with every dimension set (`rtree` would store NULL as 0).
        private func rowFilter(_ row: String) -> String {
            "\(row).Z_ENT IN (\(entityNumbers.map(String.init).joined(separator: ", ")))"
                + dimensions.map { " AND \(row).\($0.column.quotedDatabaseIdentifier) IS NOT NULL" }.joined()
        }

        /// `INSERT INTO "Z_…" SELECT row.Z_PK, row."ZA", row."ZA", … FROM … WHERE <filter>`.
        private func insertSelect(_ row: String, from: String = "") -> String {
            "INSERT INTO \(name.quotedDatabaseIdentifier) SELECT \(row).Z_PK, "
                + dimensions.map { "\(row).\($0.column.quotedDatabaseIdentifier), \(row).\($0.column.quotedDatabaseIdentifier)" }.joined(separator: ", ")
                + from + " WHERE " + rowFilter(row)
        }

        /// The triggers that keep the R-tree current on every insert, update and delete —
        /// saves, batch requests and other tools alike — in the writing transaction.
        package var triggerSQL: [String] {
            let quotedTable = table.quotedDatabaseIdentifier
            let delete = "DELETE FROM \(name.quotedDatabaseIdentifier) WHERE id = OLD.Z_PK;"
            let columns = (["Z_ENT"] + dimensions.map { $0.column.quotedDatabaseIdentifier }).joined(separator: ", ")
            return [
                "CREATE TRIGGER \(triggerNames[0].quotedDatabaseIdentifier) AFTER INSERT ON \(quotedTable) FOR EACH ROW BEGIN \(insertSelect("NEW")); END",
                "CREATE TRIGGER \(triggerNames[1].quotedDatabaseIdentifier) AFTER UPDATE OF \(columns) ON \(quotedTable) FOR EACH ROW BEGIN \(delete) \(insertSelect("NEW")); END",
                "CREATE TRIGGER \(triggerNames[2].quotedDatabaseIdentifier) AFTER DELETE ON \(quotedTable) FOR EACH ROW BEGIN \(delete) END",
            ]
        }

        /// Fills a new R-tree from the table's rows.
        package var populateSQL: String { insertSelect("t0", from: " FROM \(table.quotedDatabaseIdentifier) t0") }
    }

    /// The SQL name of a declared fetch index: `Z_<ENTITY>_<INDEX>`.
    static func fetchIndexName(_ index: FetchIndexDescription, of entity: EntityDescription) -> String {
        "Z_\(entity.name.uppercased())_\(index.name.uppercased())"
    }

    /// Adds uniqueness constraints and declared fetch indexes (binary, partial, R-tree).
    /// Runs once the mappings are known; the model has been validated by `FetchIndexRules`.
    mutating func addDeclaredIndexes(model: ManagedObjectModel) {
        for entity in model.entities {
            let mapping = mapping(for: entity)
            func column(_ property: String) -> String? {
                guard let i = entity.propertyIndexes[property] else { return nil }
                switch mapping.storage[i] {
                case let .column(c), let .foreignKey(c, _): return c
                default: return nil
                }
            }
            for fetchIndex in entity.fetchIndexes {
                let name = Self.fetchIndexName(fetchIndex, of: entity)
                if fetchIndex.isRTree {
                    let dimensions = fetchIndex.elements.compactMap { element in
                        column(element.property).map { RTree.Dimension(attribute: element.property, column: $0) }
                    }
                    guard dimensions.count == fetchIndex.elements.count else { continue }
                    rTrees.append(RTree(name: name, table: mapping.table, entityName: entity.name,
                                        entityNumbers: entity.entityNumbersInHierarchy, dimensions: dimensions))
                } else {
                    let columns = fetchIndex.elements.compactMap { element in
                        column(element.property).map { $0 + (element.ascending ? "" : " DESC") }
                    }
                    guard !columns.isEmpty else { continue }
                    let condition = try? FetchIndexRules.partialCondition(of: fetchIndex, entity: entity, schema: self)
                    indexes.append(Index(name: name, table: mapping.table, columns: columns, condition: condition ?? nil))
                }
            }
            for (n, constraint) in entity.uniquenessConstraints.enumerated() {
                let columns = constraint.compactMap(column)
                guard !columns.isEmpty else { continue }
                indexes.append(Index(name: "Z_\(entity.name.uppercased())_UNIQUE_\(n)", table: mapping.table, columns: columns, isUnique: true,
                                     condition: "Z_ENT IN (\(entity.entityNumbersInHierarchy.map(String.init).joined(separator: ",")))"))
            }
        }
    }

    /// The R-trees a fetch of `entity` may use: those declared on it or an ancestor.
    package func rTrees(for entity: EntityDescription) -> [RTree] {
        rTrees.filter { rTree in entity.model?.entitiesByName[rTree.entityName].map { entity.isKind(of: $0) } ?? false }
    }
}
