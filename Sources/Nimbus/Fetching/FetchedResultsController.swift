import Foundation
import Logging
import Synchronization

/// Keeps the results of a fetch request, split into sections, up to date as its context
/// changes, and tells a delegate (or an `AsyncSequence`) exactly what moved.
///
/// The controller watches its context: after every ``ManagedObjectContext/save()``,
/// `ManagedObjectContext/mergeChanges(fromContextDidSave:)` (automatic merges included)
/// and ``ManagedObjectContext/processPendingChanges()`` it fetches again (unsaved changes
/// included) and reports the differences as inserts, deletes, moves and updates with
/// index paths, plus section inserts and deletes. Use it on the context's queue. For example:
///
/// ```swift
/// var request = FetchRequest<ManagedObject>(entityName: "Post")
/// request.sortDescriptors = [FetchSortDescriptor("category"), FetchSortDescriptor("title")]
/// let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context,
///                                           sectionNameKeyPath: "category")
/// controller.delegate = list
/// try controller.performFetch()
/// print(controller.sections!.map(\.name))
/// ```
///
/// Sort first by the section name key path, so that each section's objects are adjacent;
/// objects of a section that appear apart are gathered in its first place.
public final class FetchedResultsController<Result: ManagedObject>: @unchecked Sendable {
    /// The request whose results the controller keeps.
    public let fetchRequest: FetchRequest<Result>
    /// The context the controller fetches in and watches.
    public let managedObjectContext: ManagedObjectContext
    /// The key path whose value names each object's section, or nil for one section.
    public let sectionNameKeyPath: String?
    /// Accepted for Core Data compatibility; results are not cached on disk.
    public let cacheName: String?
    /// Told about every batch of changes, on the context's queue.
    public weak var delegate: (any FetchedResultsControllerDelegate<Result>)?

    // State confined to the context's queue.
    private var currentSections: [FetchedResultsSection<Result>]?
    private var indexPaths: [ObjectIdentifier: ResultsIndexPath] = [:]
    private var fingerprints: [ObjectIdentifier: [PropertyValue]] = [:]
    private var identifiers: [FetchedResultsDifference.Section] = []
    private var isObserving = false
    private var isUpdating = false
    private var needsUpdate = false
    let streams = Mutex<[UUID: AsyncStream<FetchedResultsDifference>.Continuation]>([:])

    /// Creates a controller; call ``performFetch()`` to fetch.
    ///
    /// - Parameters:
    ///   - fetchRequest: what to fetch; give it sort descriptors, the first by
    ///     `sectionNameKeyPath` when there is one.
    ///   - managedObjectContext: the context to fetch in and watch.
    ///   - sectionNameKeyPath: a key path (such as `author.name`) naming each object's
    ///     section; nil puts every object in one section.
    ///   - cacheName: ignored.
    public init(fetchRequest: FetchRequest<Result>, managedObjectContext: ManagedObjectContext,
                sectionNameKeyPath: String? = nil, cacheName: String? = nil) {
        self.fetchRequest = fetchRequest
        self.managedObjectContext = managedObjectContext
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = cacheName
    }

    deinit {
        managedObjectContext.changeObservers.withLock { $0[ObjectIdentifier(self)] = nil }
        for continuation in streams.withLock({ Array($0.values) }) { continuation.finish() }
    }

    /// Fetches the results and starts watching the context. Call it on the context's queue.
    ///
    /// ```swift
    /// try context.performAndWait { try controller.performFetch() }
    /// ```
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/invalidArgument`` when the request has no
    ///   sort descriptors (the results need a stable order), or the errors of
    ///   ``ManagedObjectContext/fetch(_:)``.
    public func performFetch() throws {
        guard !fetchRequest.sortDescriptors.isEmpty else {
            throw NimbusError(.invalidArgument, "a results controller needs a fetch request with sort descriptors (the first by the section name key path)")
        }
        let sections = try fetchSections()
        install(sections)
        if !isObserving {
            isObserving = true
            managedObjectContext.changeObservers.withLock { observers in
                observers[ObjectIdentifier(self)] = { [weak self] in self?.contextDidChange() }
            }
        }
    }

    // MARK: Results

    /// Every fetched object, in order (nil before ``performFetch()``).
    public var fetchedObjects: [Result]? { currentSections.map { $0.flatMap(\.objects) } }

    /// The sections, in order (nil before ``performFetch()``).
    public var sections: [FetchedResultsSection<Result>]? { currentSections }

    /// The distinct index titles of the sections, in order.
    public var sectionIndexTitles: [String] {
        var seen: Set<String> = []
        return (currentSections ?? []).compactMap(\.indexTitle).filter { seen.insert($0).inserted }
    }

    /// The object at an index path.
    ///
    /// - Precondition: the index path is within the results.
    public func object(at indexPath: ResultsIndexPath) -> Result {
        guard let sections = currentSections, sections.indices.contains(indexPath.section),
              sections[indexPath.section].objects.indices.contains(indexPath.item) else {
            preconditionFailure("index path \(indexPath) is outside the fetched results")
        }
        return sections[indexPath.section].objects[indexPath.item]
    }

    /// Where an object is in the results, or nil when it is not one of them.
    public func indexPath(forObject object: Result) -> ResultsIndexPath? {
        indexPaths[ObjectIdentifier(object)]
    }

    /// The index title for a section name: its first letter, capitalized (nil when empty).
    public func sectionIndexTitle(forSectionName name: String) -> String? {
        name.first.map { String($0).uppercased() }
    }

    /// The index of the first section with an index title; `index` is returned when none
    /// matches (as the position the title had in ``sectionIndexTitles``).
    public func section(forSectionIndexTitle title: String, at index: Int) -> Int {
        currentSections?.firstIndex { $0.indexTitle == title } ?? index
    }

    // MARK: Fetching and diffing

    private func fetchSections() throws -> [FetchedResultsSection<Result>] {
        var request = fetchRequest
        request.returnsObjectsAsFaults = false
        let objects = try managedObjectContext.fetch(request)
        guard let keyPath = sectionNameKeyPath else {
            return [FetchedResultsSection(name: "", indexTitle: nil, objects: objects)]
        }
        let sort = FetchSortDescriptor(keyPath)
        var order: [String] = []
        var grouped: [String: [Result]] = [:]
        for object in objects {
            let name = Self.sectionName(sort.sortValue(object))
            if grouped[name] == nil { order.append(name) }
            grouped[name, default: []].append(object)
        }
        return order.map { FetchedResultsSection(name: $0, indexTitle: sectionIndexTitle(forSectionName: $0), objects: grouped[$0]!) }
    }

    /// A section name for a key path's value: text as is, numbers and dates as text, "" for nil.
    static func sectionName(_ value: PropertyValue) -> String {
        switch value {
        case .null, .objects: ""
        case let .string(s): s
        case let .integer(v): String(v)
        case let .double(v): String(v)
        case let .decimal(v): "\(v)"
        case let .bool(v): v ? "1" : "0"
        case let .date(d): "\(d)"
        case let .uuid(u): u.uuidString
        case let .url(u): u.absoluteString
        case let .data(d): d.base64EncodedString()
        case let .object(id): id.uriRepresentation().absoluteString
        }
    }

    private func install(_ sections: [FetchedResultsSection<Result>]) {
        currentSections = sections
        indexPaths = [:]
        fingerprints = [:]
        identifiers = []
        for (s, section) in sections.enumerated() {
            for (i, object) in section.objects.enumerated() {
                indexPaths[ObjectIdentifier(object)] = ResultsIndexPath(item: i, section: s)
                fingerprints[ObjectIdentifier(object)] = Self.fingerprint(object)
            }
            identifiers.append(.init(name: section.name, objectIDs: section.objects.map(\.objectID)))
        }
    }

    /// The object's attribute and to-one values, to tell whether it changed.
    private static func fingerprint(_ object: ManagedObject) -> [PropertyValue] {
        object.fireFaultIfNeeded()
        guard var values = object.values else { return [] }
        for index in object.entity.toManyIndexes where index < values.count { values[index] = .null }
        return values
    }

    /// Called by the context after a save, a merge or processPendingChanges.
    func contextDidChange() {
        guard currentSections != nil else { return }
        if isUpdating { needsUpdate = true; return }
        isUpdating = true
        defer { isUpdating = false }
        repeat {
            needsUpdate = false
            update()
        } while needsUpdate
    }

    private func update() {
        guard let old = currentSections else { return }
        let new: [FetchedResultsSection<Result>]
        do {
            new = try fetchSections()
        } catch {
            // The delegate has no way to receive an error (as in Core Data): keep the last
            // results and say why.
            Logger(label: "nimbus.results").error("a results controller of \(fetchRequest.entityName) could not fetch again: \(error)")
            return
        }
        let previousFingerprints = fingerprints
        let previousIdentifiers = identifiers
        let objectsByKey = Dictionary((old + new).flatMap(\.objects).map { (ObjectIdentifier($0), $0) }) { a, _ in a }
        let diff = FetchedResultsDiff<ObjectIdentifier>(
            old: old.map { .init(name: $0.name, keys: $0.objects.map(ObjectIdentifier.init)) },
            new: new.map { .init(name: $0.name, keys: $0.objects.map(ObjectIdentifier.init)) },
            updated: { key in previousFingerprints[key] != Self.fingerprint(objectsByKey[key]!) })
        install(new)
        if !diff.isEmpty { notifyDelegate(diff, old: old, new: new, objects: objectsByKey) }
        if !diff.isEmpty || identifiers != previousIdentifiers {
            let difference = FetchedResultsDifference(
                sectionChanges: diff.sectionChanges,
                objectChanges: diff.objectChanges.map { change in change.map { objectsByKey[$0]!.objectID } },
                sections: identifiers)
            for continuation in streams.withLock({ Array($0.values) }) { continuation.yield(difference) }
        }
    }

    private func notifyDelegate(_ diff: FetchedResultsDiff<ObjectIdentifier>, old: [FetchedResultsSection<Result>],
                                new: [FetchedResultsSection<Result>], objects: [ObjectIdentifier: Result]) {
        guard let delegate else { return }
        delegate.controllerWillChangeContent(self)
        for change in diff.sectionChanges {
            let section = change.type == .delete ? old[change.sectionIndex] : new[change.sectionIndex]
            delegate.controller(self, didChange: section, atSectionIndex: change.sectionIndex, for: change.type)
        }
        for change in diff.objectChanges {
            delegate.controller(self, didChange: objects[change.item]!, at: change.indexPath, for: change.type,
                                newIndexPath: change.newIndexPath)
        }
        delegate.controllerDidChangeContent(self)
    }
}
