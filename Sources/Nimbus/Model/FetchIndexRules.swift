/// What a fetch index may declare, checked when its model loads (built in code, decoded
/// from JSON or a store's model cache, or read from Xcode), so a store never receives an
/// index SQLite would refuse or a query could misuse.
///
/// - Every element names a stored attribute or to-one relationship of the entity.
/// - An index is all binary or all R-tree (Core Data's rule too).
/// - R-tree elements are required (non-optional) integer, floating-point or date
///   attributes, at most five (SQLite's `rtree` limit), each once; R-tree indexes take no
///   partial predicate.
/// - A partial predicate parses, and compiles to SQL over the entity's own columns without
///   Nimbus's SQL functions (checked by ``checkPartialPredicates(of:problems:)``).
enum FetchIndexRules {
    /// The attribute types an R-tree dimension accepts.
    static func isRangeIndexable(_ type: AttributeType) -> Bool {
        switch type {
        case .integer16, .integer32, .integer64, .float, .double, .date: true
        default: false
        }
    }

    /// Appends the structural problems of the entity's fetch indexes to `problems`.
    static func check(_ entity: EntityDescription, problems: inout [String]) {
        var names: Set<String> = []
        for index in entity.fetchIndexes {
            let label = "fetch index \(entity.name).\(index.name)"
            if !names.insert(index.name.uppercased()).inserted {
                problems.append("\(label) is declared twice; index names must be unique within an entity")
            }
            if index.elements.isEmpty { problems.append("\(label) has no elements; add at least one property") }
            let kinds = Set(index.elements.map(\.collationType))
            if kinds.count > 1 {
                problems.append("\(label) mixes binary and R-tree elements; declare two indexes instead")
                continue
            }
            var seen: Set<String> = []
            for element in index.elements {
                guard let property = entity.property(named: element.property) else {
                    problems.append("\(label) names unknown property \(element.property)")
                    continue
                }
                if property.isTransient {
                    problems.append("\(label) names transient property \(element.property), which is not stored")
                    continue
                }
                if case let .relationship(relationship) = property, relationship.isToMany {
                    problems.append("\(label) names to-many relationship \(element.property); only attributes and to-one relationships can be indexed")
                    continue
                }
                if element.collationType == .rTree {
                    guard let attribute = property.attribute, isRangeIndexable(attribute.type) else {
                        let type = property.attribute.map { "a \($0.type.rawValue) attribute" } ?? "a relationship"
                        problems.append("\(label): R-tree element \(element.property) is \(type); R-tree elements must be integer, float, double or date attributes")
                        continue
                    }
                    if attribute.isOptional {
                        problems.append("\(label): R-tree element \(element.property) is optional; R-tree elements must be required (isOptional: false)")
                    }
                    if !seen.insert(element.property).inserted {
                        problems.append("\(label) names \(element.property) twice; each R-tree dimension is a different attribute")
                    }
                }
            }
            if index.isRTree {
                if index.elements.count > 5 {
                    problems.append("\(label) has \(index.elements.count) R-tree elements; SQLite's rtree allows at most 5")
                }
                if index.partialIndexPredicate != nil {
                    problems.append("\(label) is an R-tree index with a partial predicate; only binary indexes can be partial")
                }
            } else if let format = index.partialIndexPredicate {
                do { _ = try QueryPredicate(format: format) } catch let error as NimbusError {
                    problems.append("\(label) has a malformed partial predicate \"\(format)\": \(error.message)")
                } catch {
                    problems.append("\(label) has a malformed partial predicate \"\(format)\": \(error)")
                }
            }
        }
    }

    /// Compiles each partial predicate (once the model is built) and appends why one
    /// cannot be an index's `WHERE` clause.
    static func checkPartialPredicates(of model: ManagedObjectModel, problems: inout [String]) {
        for entity in model.entities {
            for index in entity.fetchIndexes where !index.isRTree && index.partialIndexPredicate != nil {
                do {
                    _ = try partialCondition(of: index, entity: entity, schema: model.schema)
                } catch let error as NimbusError {
                    problems.append("fetch index \(entity.name).\(index.name) has a partial predicate that cannot index: \(error.message)")
                } catch {
                    problems.append("fetch index \(entity.name).\(index.name) has a partial predicate that cannot index: \(error)")
                }
            }
        }
    }

    /// The `WHERE` clause of a partial index: constants inlined, columns qualified by the
    /// quoted table name (SQLite allows no alias there).
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/invalidPredicate`` when the predicate
    ///   needs a join, a subquery or one of Nimbus's SQL functions (`[c]`, `[d]`, `LIKE`,
    ///   `MATCHES`), none of which an index can hold.
    static func partialCondition(of index: FetchIndexDescription, entity: EntityDescription, schema: StoreSchema) throws -> String? {
        guard let format = index.partialIndexPredicate else { return nil }
        let predicate = try QueryPredicate(format: format)
        let table = schema.mapping(for: entity).table.quotedDatabaseIdentifier
        var compiler = PredicateSQLCompiler(entity: entity, schema: schema, alias: table)
        compiler.usesRTrees = false
        let sql = try compiler.inlinedCondition(predicate)
        guard compiler.joins.isEmpty, !sql.contains("SELECT ") else {
            throw NimbusError(.invalidPredicate, "\"\(format)\" reaches other entities; a partial index may test only the entity's own attributes")
        }
        guard !sql.contains("NIMBUS_") else {
            throw NimbusError(.invalidPredicate, "\"\(format)\" needs Nimbus's SQL functions ([c], [d], LIKE, MATCHES or a collation), which an index cannot use; compare plainly instead")
        }
        return sql
    }
}
