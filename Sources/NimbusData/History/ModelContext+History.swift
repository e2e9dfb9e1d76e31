public import Foundation
import Nimbus

extension ModelContext {
    /// The saved transactions a descriptor describes, oldest first (every store's).
    ///
    /// The predicate is evaluated in memory over the transactions (decision 0105).
    ///
    /// ```swift
    /// let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
    /// for transaction in history { for change in transaction.changes { … } }
    /// ```
    ///
    /// - Throws: the store's read errors; the predicate's evaluation errors.
    public func fetchHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] {
        let transactions = try performed {
            try managedObjectContext.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions
        }.map(makeTransaction)
        var matching = try descriptor.predicate.map { predicate in try transactions.filter { try predicate.evaluate($0) } } ?? transactions
        if !descriptor.sortBy.isEmpty {
            matching.sort { a, b in
                for sort in descriptor.sortBy {
                    switch sort.compare(a, b) {
                    case .orderedAscending: return true
                    case .orderedDescending: return false
                    case .orderedSame: continue
                    }
                }
                return false
            }
        }
        if descriptor.fetchLimit > 0 { matching = Array(matching.prefix(descriptor.fetchLimit)) }
        return matching
    }

    /// Deletes the transactions a descriptor describes. They must be the oldest ones
    /// (history is deleted from its start); all of them without a predicate.
    ///
    /// ```swift
    /// try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= lastRead }))
    /// ```
    ///
    /// - Throws: ``SwiftDataError`` when the matching transactions are not the oldest of
    ///   their store (nothing is deleted then).
    public func deleteHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws {
        var plain = descriptor
        plain.sortBy = []
        plain.fetchLimit = 0
        let matching = try fetchHistory(plain)
        let all = try fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        var cutoffs: [String: PersistentHistoryToken] = [:]
        for store in Set(all.map(\.storeIdentifier)) {
            let storeAll = all.filter { $0.storeIdentifier == store }
            let storeMatching = Set(matching.filter { $0.storeIdentifier == store }.map(\.token))
            guard !storeMatching.isEmpty else { continue }
            guard storeAll.prefix(storeMatching.count).allSatisfy({ storeMatching.contains($0.token) }) else {
                throw SwiftDataError(.historyTokenExpired, "deleteHistory deletes history from its start; the predicate matches transactions with older ones between them that it does not match (match every transaction up to a token, e.g. #Predicate { $0.token <= token })")
            }
            cutoffs[store] = storeAll[storeMatching.count - 1].token.token
        }
        try performed {
            // Nimbus deletes up to and including the token's transaction.
            for token in cutoffs.values {
                _ = try managedObjectContext.execute(.deleteHistory(before: token))
            }
        }
    }

    private func makeTransaction(_ transaction: PersistentHistoryTransaction) -> DefaultHistoryTransaction {
        DefaultHistoryTransaction(
            transactionIdentifier: transaction.transactionNumber, token: DefaultHistoryToken(token: transaction.token),
            timestamp: transaction.timestamp, author: transaction.author, bundleIdentifier: transaction.bundleID ?? "",
            processIdentifier: transaction.processID ?? "", storeIdentifier: transaction.storeID,
            changes: (transaction.changes ?? []).compactMap(makeChange))
    }

    private func makeChange(_ change: PersistentHistoryChange) -> HistoryChange? {
        guard let type = container.modelTypes[change.changedObjectID.entity.name] else { return nil }
        return historyChange(type, change)
    }
}

private func historyChange<Model: PersistentModel>(_ type: Model.Type, _ change: PersistentHistoryChange) -> HistoryChange {
    let id = PersistentIdentifier(storage: .object(change.changedObjectID), entityName: change.changedObjectID.entity.name)
    switch change.changeType {
    case .insert:
        return .insert(DefaultHistoryInsert<Model>(changedPersistentIdentifier: id, changeIdentifier: change.changeID,
                                                   transactionIdentifier: change.transactionNumber))
    case .update:
        let keyPaths: [PartialKeyPath<Model>] = Model.schemaMetadata.compactMap { property in
            guard change.updatedProperties?.contains(property.name) ?? true else { return nil }
            return property.keypath as? PartialKeyPath<Model>
        }
        return .update(DefaultHistoryUpdate<Model>(changedPersistentIdentifier: id, changeIdentifier: change.changeID,
                                                   transactionIdentifier: change.transactionNumber, updatedAttributes: keyPaths))
    case .delete:
        let info = ModelEntityInfo.known(Model.self)
        var values: [String: Any] = [:]
        for (name, value) in change.tombstone ?? [:] {
            guard let property = info.properties[name], let type = property.kind.attributeType else { continue }
            values[name] = tombstoneValue(value, kind: property.kind, type: type)
        }
        return .delete(DefaultHistoryDelete<Model>(changedPersistentIdentifier: id, changeIdentifier: change.changeID,
                                                   transactionIdentifier: change.transactionNumber,
                                                   tombstone: HistoryTombstone(values: values)))
    }
}

/// A tombstone's stored value as the model's Swift type.
private func tombstoneValue(_ value: PropertyValue, kind: ValueKind, type: AttributeType) -> Any? {
    switch kind {
    case let .builtin(_, swiftType): return swiftType.init(managedValue: value)
    case let .raw(_, _, rawType): return rawType.init(managedValue: value)
    case let .codable(name): return value.anyValue(for: .transformable, transformerName: name)
    case .toOne, .toMany: return nil
    }
}
