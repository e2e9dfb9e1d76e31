import Foundation
import Nimbus

// The same model as LibraryModel.swift, written for Nimbus's @Managed (this file imports
// Nimbus only, so @Attribute and @Relationship here are Nimbus's).

enum ManagedGenre: String, ManagedRawRepresentable {
    case fiction, poetry, essay
}

struct ManagedDimensions: ManagedTransformable, Hashable {
    var width: Double
    var height: Double
}

@Managed(entityName: "Book")
final class ManagedBook: ManagedObject {
    @Attribute(.unique) var isbn: String
    @Attribute(.indexed) var title: String = ""
    var genre: ManagedGenre = .fiction
    var published: Date?
    var pages: Int = 0
    var tags: [String] = []
    var dimensions: ManagedDimensions?
    @Attribute(.externalStorage) var cover: Data?
    @Relationship(deleteRule: .cascade, inverse: \ManagedChapter.book) var chapters: Set<ManagedChapter>
    var shelf: ManagedShelf?
}

@Managed(entityName: "Chapter")
final class ManagedChapter: ManagedObject {
    var number: Int = 0
    var heading: String?
    var book: ManagedBook?
}

@Managed(entityName: "Shelf")
final class ManagedShelf: ManagedObject {
    var label: String = ""
    @Relationship(inverse: \ManagedBook.shelf) var books: Set<ManagedBook>
}

/// Opens a store of the @Managed model at a URL and closes it.
func createManagedLibraryStore(at url: URL) throws {
    let model = try ManagedObjectModel(ManagedBook.self, ManagedChapter.self, ManagedShelf.self)
    let container = PersistentContainer(name: "Library", managedObjectModel: model)
    var description = PersistentStoreDescription(url: url)
    description.persistentHistoryTracking = true
    container.persistentStoreDescriptions = [description]
    try container.loadPersistentStores()
    for store in container.persistentStoreCoordinator.persistentStores {
        try container.persistentStoreCoordinator.removePersistentStore(store)
    }
}
