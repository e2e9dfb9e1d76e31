import NimbusData

/// A SwiftData-style model whose @Managed twin (ManagedLibraryModel.swift) must produce
/// the same store schema.
enum Genre: String, Codable {
    case fiction, poetry, essay
}

struct Dimensions: Codable, Hashable {
    var width: Double
    var height: Double
}

@Model
final class Book {
    #Index<Book>([\.title])

    @Attribute(.unique) var isbn: String
    var title: String = ""
    var genre: Genre = Genre.fiction
    var published: Date?
    var pages: Int = 0
    var tags: [String] = []
    var dimensions: Dimensions?
    @Attribute(.externalStorage) var cover: Data?
    @Relationship(deleteRule: .cascade, inverse: \Chapter.book) var chapters: [Chapter] = []
    var shelf: Shelf?

    init(isbn: String, title: String) {
        self.isbn = isbn
        self.title = title
    }
}

@Model
final class Chapter {
    var number: Int = 0
    var heading: String?
    var book: Book?

    init(number: Int) { self.number = number }
}

@Model
final class Shelf {
    var label: String = ""
    @Relationship(inverse: \Book.shelf) var books: [Book] = []

    init(label: String) { self.label = label }
}
