import Foundation
import Testing
import Nimbus
import NimbusTesting

/// Records every lifecycle call, per object, in a shared log (contexts use it on their queue).
final class Journal: ManagedObject {
    nonisolated(unsafe) static var log: [String] = []

    private var name: String { (primitiveValue(forKey: "name")).flatMap { if case let .string(s) = $0 { s } else { nil } } ?? "?" }

    override func awakeFromInsert() { Self.log.append("awakeFromInsert"); try? setPrimitiveValue("new", forKey: "name") }
    override func awakeFromFetch() { Self.log.append("awakeFromFetch \(name)") }
    override func willSave() { Self.log.append("willSave \(name)") }
    override func didSave() { Self.log.append("didSave \(name)") }
    override func prepareForDeletion() { Self.log.append("prepareForDeletion \(name)") }
    override func willTurnIntoFault() { Self.log.append("willTurnIntoFault \(name)") }
    override func didTurnIntoFault() { Self.log.append("didTurnIntoFault") }
    override func willChangeValue(forKey key: String) { Self.log.append("willChange \(key)"); super.willChangeValue(forKey: key) }
    override func didChangeValue(forKey key: String) { Self.log.append("didChange \(key)"); super.didChangeValue(forKey: key) }

    override func validateValue(_ value: inout Any?, forKey key: String) throws {
        if key == "name", value as? String == "forbidden" {
            throw NimbusError(.validationFailed, "name may not be forbidden")
        }
        try super.validateValue(&value, forKey: key)
    }

    override func validateForDelete() throws {
        if name == "keep" { throw NimbusError(.validationFailed, "\(name) is kept") }
    }

    override func validateForUpdate() throws {
        try super.validateForUpdate()
        if committedValues(forKeys: ["name"])["name"] as? String == "frozen" { throw NimbusError(.validationFailed, "no updates to frozen") }
    }
}

@Suite("Lifecycle and validation hooks", .serialized)
struct LifecycleHooksTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Journal", class: Journal.self) {
                AttributeDescription("name", .string, maxLength: 20)
                RelationshipDescription("entries", to: "Entry", inverse: "journal", toMany: true, deleteRule: .cascade)
            }
            EntityDescription("Entry") {
                AttributeDescription("text", .string)
                RelationshipDescription("journal", to: "Journal", inverse: "entries")
            }
        }
    }

    @Test("insert, save, fetch, fault and delete call their hooks in order (didSave for deleted objects too)")
    func order() throws {
        let stack = try TestStack(model: Self.model())
        let context = stack.newContext()
        Journal.log = []
        let id = try context.performAndWait { () throws in
            let journal = try context.insertNewObject(forEntityName: "Journal")
            #expect(journal.value(forKey: "name") as? String == "new", "awakeFromInsert set a primitive value")
            journal.setValue("a", forKey: "name")
            try context.save()
            return journal.objectID
        }
        #expect(Journal.log == ["awakeFromInsert", "willChange name", "didChange name", "willSave a", "didSave a"])
        Journal.log = []
        try context.performAndWait { () throws in
            let journal = try context.existingObject(with: id)
            context.refresh(journal, mergeChanges: false)
            _ = journal.value(forKey: "name")
            context.delete(journal)
            try context.save()
        }
        #expect(Journal.log == ["willTurnIntoFault a", "didTurnIntoFault", "awakeFromFetch a", "prepareForDeletion a", "willSave a", "didSave a"])
    }

    @Test("validateValue, validateForUpdate and validateForDelete refuse saves, listing every failure; model rules still apply")
    func validation() throws {
        let stack = try TestStack(model: Self.model())
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let a = try context.insertNewObject(forEntityName: "Journal")
            a.setValue("forbidden", forKey: "name")
            let b = try context.insertNewObject(forEntityName: "Journal")
            b.setValue(String(repeating: "x", count: 30), forKey: "name")
            #expect { try context.save() } throws: { error in
                let failures = (error as? NimbusError)?.validationFailures ?? []
                return failures.count == 2 && failures.contains { $0.reason.contains("forbidden") } && failures.contains { $0.reason.contains("20") }
            }
            a.setValue("keep", forKey: "name")
            b.setValue("frozen", forKey: "name")
            try context.save()
            b.setValue("frozen", forKey: "name")
            context.delete(a)
            #expect { try context.save() } throws: { error in
                (error as? NimbusError)?.validationFailures.first?.reason.contains("keep is kept") == true
            }
            context.rollback()
            try b.setValidatedValue("still", forKey: "name")
            #expect { try context.save() } throws: { _ in true }
        }
    }

    @Test("setPrimitiveValue skips inverses; mutableSetValue keeps them; objectIDs(forRelationshipNamed:) reads IDs only")
    func relationshipsAccess() throws {
        let stack = try TestStack(model: Self.model())
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let journal = try context.insertNewObject(forEntityName: "Journal")
            let one = try context.insertNewObject(forEntityName: "Entry")
            let two = try context.insertNewObject(forEntityName: "Entry")
            let entries = journal.mutableSetValue(forKey: "entries")
            entries.add(one)
            entries.add(two)
            #expect(entries.count == 2 && entries.contains(one))
            #expect(one.value(forKey: "journal") as? ManagedObject === journal, "the inverse followed")
            entries.remove(two)
            #expect(two.value(forKey: "journal") == nil)
            try context.save()
            #expect(try journal.objectIDs(forRelationshipNamed: "entries") == [one.objectID])
            #expect(try one.objectIDs(forRelationshipNamed: "journal") == [journal.objectID])
            #expect { try journal.objectIDs(forRelationshipNamed: "name") } throws: { ($0 as? NimbusError)?.code == .unknownProperty }

            try two.setPrimitiveValue(journal, forKey: "journal")
            #expect(try journal.objectIDs(forRelationshipNamed: "entries") == [one.objectID], "no inverse maintenance")
            #expect { try two.setPrimitiveValue("text", forKey: "journal") } throws: { ($0 as? NimbusError)?.code == .typeMismatch }
        }
    }

    @Test("observers hear changes made by setValue, the inverse side and mutableSetValue; cancel stops them")
    func observation() throws {
        let stack = try TestStack(model: Self.model())
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let journal = try context.insertNewObject(forEntityName: "Journal")
            let entry = try context.insertNewObject(forEntityName: "Entry")
            var heard: [String] = []
            let names = journal.observeValue(forKey: "name") { heard.append("name=\($0.value(forKey: "name") as? String ?? "nil")") }
            journal.observeValue(forKey: "entries") { heard.append("entries=\(($0.value(forKey: "entries") as? Set<ManagedObject>)?.count ?? -1)") }
            journal.setValue("x", forKey: "name")
            entry.setValue(journal, forKey: "journal")
            names.cancel()
            journal.setValue("y", forKey: "name")
            #expect(heard == ["name=x", "entries=1"])
        }
    }

    @Test("changedValuesForCurrentEvent covers only the current event")
    func currentEvent() throws {
        let stack = try TestStack(model: Self.model())
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let entry = try context.insertNewObject(forEntityName: "Entry")
            entry.setValue("a", forKey: "text")
            #expect(entry.changedValuesForCurrentEvent()["text"] as? String == "a")
            try context.save()
            entry.setValue("b", forKey: "text")
            #expect(entry.changedValuesForCurrentEvent().keys.sorted() == ["text"])
            try context.processPendingChanges()
            #expect(entry.changedValuesForCurrentEvent().isEmpty)
            #expect(entry.changedValues().keys.sorted() == ["text"], "still unsaved")
        }
    }
}
