import Foundation
@testable import Nimbus
import Testing

/// A results controller delegate that records each batch, and applies a batch to an old
/// snapshot the way a table view does, to compare with a fresh fetch.
final class ResultsRecorder: FetchedResultsControllerDelegate, @unchecked Sendable {
    typealias Section = (name: String, objects: [ManagedObject])

    struct Batch {
        var sectionChanges: [(type: FetchedResultsChangeType, index: Int, name: String)] = []
        var objectChanges: [FetchedResultsObjectChange<ManagedObject>] = []
    }

    var batches: [Batch] = []
    var events: [String] = []
    private var current: Batch?

    func controllerWillChangeContent(_ controller: FetchedResultsController<ManagedObject>) {
        events.append("will")
        current = Batch()
    }

    func controller(_ controller: FetchedResultsController<ManagedObject>, didChange section: FetchedResultsSection<ManagedObject>,
                    atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {
        events.append("section")
        current?.sectionChanges.append((type, sectionIndex, section.name))
    }

    func controller(_ controller: FetchedResultsController<ManagedObject>, didChange object: ManagedObject, at indexPath: ResultsIndexPath?,
                    for type: FetchedResultsChangeType, newIndexPath: ResultsIndexPath?) {
        events.append("object")
        current?.objectChanges.append(.init(type: type, item: object, indexPath: indexPath, newIndexPath: newIndexPath))
    }

    func controllerDidChangeContent(_ controller: FetchedResultsController<ManagedObject>) {
        events.append("did")
        if let current { batches.append(current) }
        current = nil
    }

    /// Takes the batches recorded since the last call.
    func take() -> [Batch] {
        defer { batches = [] }
        return batches
    }

    /// Applies a batch: removals at old index paths, section deletes, section inserts,
    /// then insertions at new index paths; checks updates point at the same object.
    static func apply(_ batch: Batch, to old: [Section]) -> [Section] {
        var sections = old
        let removals = batch.objectChanges.filter { $0.type == .delete || $0.type == .move }
        for change in removals.sorted(by: { $0.indexPath! > $1.indexPath! }) {
            let path = change.indexPath!
            #expect(sections[path.section].objects[path.item] === change.item, "removal at \(path) names another object")
            sections[path.section].objects.remove(at: path.item)
        }
        for change in batch.sectionChanges.filter({ $0.type == .delete }).sorted(by: { $0.index > $1.index }) {
            #expect(sections[change.index].objects.isEmpty, "deleted section \(change.name) still has objects")
            #expect(sections[change.index].name == change.name)
            sections.remove(at: change.index)
        }
        for change in batch.sectionChanges.filter({ $0.type == .insert }).sorted(by: { $0.index < $1.index }) {
            sections.insert((change.name, []), at: change.index)
        }
        let insertions = batch.objectChanges.filter { $0.type == .insert || $0.type == .move }
        for change in insertions.sorted(by: { $0.newIndexPath! < $1.newIndexPath! }) {
            let path = change.newIndexPath!
            sections[path.section].objects.insert(change.item, at: path.item)
        }
        for change in batch.objectChanges where change.type == .update {
            let before = change.indexPath!, new = change.newIndexPath!
            #expect(old[before.section].objects[before.item] === change.item, "update from \(before) names another object")
            #expect(sections[new.section].objects[new.item] === change.item, "update at \(new) names another object")
        }
        return sections
    }

    /// Whether two snapshots hold the same sections and the same objects in the same order.
    static func same(_ a: [Section], _ b: [Section]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { x, y in
            x.name == y.name && x.objects.count == y.objects.count && zip(x.objects, y.objects).allSatisfy { $0 === $1 }
        }
    }

    static func describe(_ sections: [Section]) -> String {
        sections.map { "\($0.name): " + $0.objects.map { ($0.value(forKey: "title") as? String) ?? "?" }.joined(separator: ",") }
            .joined(separator: " | ")
    }
}

extension FetchedResultsController where Result == ManagedObject {
    /// The controller's sections as a snapshot of objects.
    var snapshot: [ResultsRecorder.Section] { (sections ?? []).map { ($0.name, $0.objects) } }
}
