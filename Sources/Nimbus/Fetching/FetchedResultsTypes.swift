/// A position in a ``FetchedResultsController``'s results: a section and an item in it.
///
/// Named so that it never clashes with Foundation's `IndexPath`. For example:
///
/// ```swift
/// let first = controller.object(at: ResultsIndexPath(item: 0, section: 0))
/// ```
public struct ResultsIndexPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The section's index.
    public var section: Int
    /// The item's index in its section.
    public var item: Int

    /// Creates an index path.
    public init(item: Int, section: Int) {
        self.item = item
        self.section = section
    }

    /// The item's index, as table views call it.
    public var row: Int { item }

    /// Orders by section, then by item.
    public static func < (lhs: ResultsIndexPath, rhs: ResultsIndexPath) -> Bool {
        (lhs.section, lhs.item) < (rhs.section, rhs.item)
    }

    /// `[section, item]`.
    public var description: String { "[\(section), \(item)]" }
}

/// What happened to an object or a section of a ``FetchedResultsController``.
public enum FetchedResultsChangeType: Sendable, Hashable {
    /// It appeared (at the new index path).
    case insert
    /// It disappeared (from the old index path).
    case delete
    /// It moved from the old index path to the new one (its values may have changed too).
    case move
    /// Its values changed and it stayed in place, relative to the other changes.
    case update
}

/// One section of a ``FetchedResultsController``: the objects sharing a value of the
/// section name key path.
///
/// ```swift
/// for section in controller.sections ?? [] {
///     print(section.name, section.numberOfObjects)
/// }
/// ```
public struct FetchedResultsSection<Result: ManagedObject> {
    /// The value of the section name key path, as text ("" for nil).
    public let name: String
    /// The title of the section in an index: the name's first letter, capitalized.
    public let indexTitle: String?
    /// The section's objects, in the request's order.
    public let objects: [Result]

    /// The number of objects in the section.
    public var numberOfObjects: Int { objects.count }
}

/// A change of one object of a ``FetchedResultsController``.
///
/// Apply a batch like a table view does: remove deleted and moved objects at their old
/// index paths (and deleted sections), then add inserted sections, then inserted and
/// moved objects at their new index paths; updated objects stay where they are.
public struct FetchedResultsObjectChange<Item> {
    /// The kind of change.
    public let type: FetchedResultsChangeType
    /// The object (or its ID, in a ``FetchedResultsDifference``).
    public let item: Item
    /// Where it was: set for delete, move and update.
    public let indexPath: ResultsIndexPath?
    /// Where it is now: set for insert, move and update.
    public let newIndexPath: ResultsIndexPath?

    func map<T>(_ transform: (Item) -> T) -> FetchedResultsObjectChange<T> {
        FetchedResultsObjectChange<T>(type: type, item: transform(item), indexPath: indexPath, newIndexPath: newIndexPath)
    }
}

extension FetchedResultsObjectChange: Sendable where Item: Sendable {}
extension FetchedResultsObjectChange: Equatable where Item: Equatable {}

/// A section that appeared or disappeared.
public struct FetchedResultsSectionChange: Sendable, Hashable {
    /// ``FetchedResultsChangeType/insert`` or ``FetchedResultsChangeType/delete``.
    public let type: FetchedResultsChangeType
    /// The section's name.
    public let name: String
    /// Its index: the old one for a delete, the new one for an insert.
    public let sectionIndex: Int
}

/// One batch of changes of a ``FetchedResultsController``, as its
/// ``FetchedResultsController/differences`` sequence delivers it: object IDs (which may
/// cross threads) rather than objects, and the sections as they are after the batch.
///
/// ```swift
/// for await difference in controller.differences {
///     for change in difference.objectChanges where change.type == .insert {
///         print("new", change.item, "at", change.newIndexPath!)
///     }
/// }
/// ```
public struct FetchedResultsDifference: Sendable {
    /// A section after the batch: its name and its objects' IDs, in order.
    public struct Section: Sendable, Hashable {
        /// The section's name.
        public let name: String
        /// The IDs of its objects, in order.
        public let objectIDs: [ManagedObjectID]
    }

    /// Sections inserted and deleted.
    public let sectionChanges: [FetchedResultsSectionChange]
    /// Objects inserted, deleted, moved and updated.
    public let objectChanges: [FetchedResultsObjectChange<ManagedObjectID>]
    /// The sections after the batch (new objects get permanent IDs when they are saved;
    /// a batch with no changes tells that).
    public let sections: [Section]
}

/// Learns how a ``FetchedResultsController``'s results change, in one batch per save,
/// merge or ``ManagedObjectContext/processPendingChanges()``.
///
/// Calls come on the context's queue, in this order: ``controllerWillChangeContent(_:)``,
/// the section changes, the object changes, ``controllerDidChangeContent(_:)``. Every
/// method has an empty default. For example:
///
/// ```swift
/// final class PostsList: FetchedResultsControllerDelegate {
///     func controller(_ controller: FetchedResultsController<Post>, didChange post: Post,
///                     at indexPath: ResultsIndexPath?, for type: FetchedResultsChangeType,
///                     newIndexPath: ResultsIndexPath?) {
///         print(type, indexPath as Any, newIndexPath as Any)
///     }
/// }
/// ```
public protocol FetchedResultsControllerDelegate<Result>: AnyObject {
    /// The kind of object the controller fetches.
    associatedtype Result: ManagedObject

    /// A batch of changes begins.
    func controllerWillChangeContent(_ controller: FetchedResultsController<Result>)

    /// A section appeared (`type` insert, at its new index) or disappeared (delete, at its
    /// old index).
    func controller(_ controller: FetchedResultsController<Result>, didChange section: FetchedResultsSection<Result>,
                    atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType)

    /// An object was inserted, deleted, moved or updated.
    ///
    /// - Parameters:
    ///   - controller: the controller whose results changed.
    ///   - object: the object that changed.
    ///   - indexPath: where it was (nil for an insert).
    ///   - type: insert, delete, move or update.
    ///   - newIndexPath: where it is now (nil for a delete).
    func controller(_ controller: FetchedResultsController<Result>, didChange object: Result, at indexPath: ResultsIndexPath?,
                    for type: FetchedResultsChangeType, newIndexPath: ResultsIndexPath?)

    /// A batch of changes ended; the controller's results are up to date.
    func controllerDidChangeContent(_ controller: FetchedResultsController<Result>)
}

/// Empty defaults, so a delegate implements only what it needs.
extension FetchedResultsControllerDelegate {
    /// Does nothing.
    public func controllerWillChangeContent(_ controller: FetchedResultsController<Result>) {}
    /// Does nothing.
    public func controller(_ controller: FetchedResultsController<Result>, didChange section: FetchedResultsSection<Result>,
                           atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {}
    /// Does nothing.
    public func controller(_ controller: FetchedResultsController<Result>, didChange object: Result, at indexPath: ResultsIndexPath?,
                           for type: FetchedResultsChangeType, newIndexPath: ResultsIndexPath?) {}
    /// Does nothing.
    public func controllerDidChangeContent(_ controller: FetchedResultsController<Result>) {}
}
