import Foundation
@testable import Nimbus
import NimbusTesting
import Testing

/// Typed classes, as the `@Managed` macro will write them.
final class Writer: ManagedObject, ManagedObjectKeyPathNaming {
    var name: String { value(forKey: "name") as? String ?? "" }
    var age: Int16 { value(forKey: "age") as? Int16 ?? 0 }
    var nickname: String? { value(forKey: "nickname") as? String }
    var shout: String { name.uppercased() }

    static func propertyName(for keyPath: AnyKeyPath) -> String? {
        switch keyPath {
        case \Writer.name: "name"
        case \Writer.age: "age"
        case \Writer.nickname: "nickname"
        default: nil
        }
    }
}

final class Article: ManagedObject, ManagedObjectKeyPathNaming {
    var title: String? { value(forKey: "title") as? String }
    var views: Int64 { value(forKey: "views") as? Int64 ?? 0 }
    var rating: Double? { value(forKey: "rating") as? Double }
    var published: Bool { value(forKey: "published") as? Bool ?? false }
    var author: Writer? { value(forKey: "author") as? Writer }
    var labels: Set<Label> { value(forKey: "labels") as? Set<Label> ?? [] }

    static func propertyName(for keyPath: AnyKeyPath) -> String? {
        switch keyPath {
        case \Article.title: "title"
        case \Article.views: "views"
        case \Article.rating: "rating"
        case \Article.published: "published"
        case \Article.author: "author"
        case \Article.labels: "labels"
        default: nil
        }
    }
}

final class Label: ManagedObject, ManagedObjectKeyPathNaming {
    var name: String { value(forKey: "name") as? String ?? "" }
    static func propertyName(for keyPath: AnyKeyPath) -> String? { keyPath == \Label.name ? "name" : nil }
}

@Suite("#Predicate")
struct SwiftPredicateTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Writer", class: Writer.self) {
                AttributeDescription("name", .string)
                AttributeDescription("age", .integer16)
                AttributeDescription("nickname", .string)
                RelationshipDescription("articles", to: "Article", inverse: "author", toMany: true)
            }
            EntityDescription("Article", class: Article.self) {
                AttributeDescription("title", .string)
                AttributeDescription("views", .integer64, defaultValue: 0)
                AttributeDescription("rating", .double)
                AttributeDescription("published", .boolean, defaultValue: false)
                RelationshipDescription("author", to: "Writer", inverse: "articles")
                RelationshipDescription("labels", to: "Label", inverse: "articles", toMany: true)
            }
            EntityDescription("Label", class: Label.self) {
                AttributeDescription("name", .string)
                RelationshipDescription("articles", to: "Article", inverse: "labels", toMany: true)
            }
        }
    }

    static let names = ["Ada", "Grace"]
    static let favourites: [Int64] = [5, 50]

    /// `#Predicate`s and the format strings that mean the same.
    static let cases: [(String, Predicate<Article>)] = [
        ("views > 10", #Predicate<Article> { $0.views > 10 }),
        ("views >= 10 AND views <= 50", #Predicate<Article> { $0.views >= 10 && $0.views <= 50 }),
        ("views < 10 OR title == 'Swift'", #Predicate<Article> { $0.views < 10 || $0.title == "Swift" }),
        ("NOT (published == YES)", #Predicate<Article> { !($0.published == true) }),
        ("published == YES", #Predicate<Article> { $0.published }),
        ("title != nil", #Predicate<Article> { $0.title != nil }),
        ("title == nil", #Predicate<Article> { $0.title == nil }),
        ("author.name == 'Ada'", #Predicate<Article> { $0.author?.name == "Ada" }),
        ("author.name IN {'Ada', 'Grace'}", #Predicate<Article> { $0.author.flatMap { names.contains($0.name) } ?? false }),
        ("views IN {5, 50}", #Predicate<Article> { favourites.contains($0.views) }),
        ("title CONTAINS 'wi'", #Predicate<Article> { $0.title?.contains("wi") ?? false }),
        ("title BEGINSWITH 'Sw'", #Predicate<Article> { $0.title?.starts(with: "Sw") ?? false }),
        ("views BETWEEN {5, 20}", #Predicate<Article> { (5...20).contains($0.views) }),
        ("views >= 5 AND views < 20", #Predicate<Article> { (5..<20).contains($0.views) }),
        ("labels.@count >= 2", #Predicate<Article> { $0.labels.count >= 2 }),
        ("labels.@count == 0", #Predicate<Article> { $0.labels.isEmpty }),
        ("SUBQUERY(labels, $v1, $v1.name == 'linux').@count != 0", #Predicate<Article> { $0.labels.contains { $0.name == "linux" } }),
        ("SUBQUERY(labels, $v1, NOT ($v1.name == 'swift')).@count == 0 AND NOT (labels.@count == 0)", #Predicate<Article> { $0.labels.allSatisfy { $0.name == "swift" } && !$0.labels.isEmpty }),
        ("SUBQUERY(labels, $v1, $v1.name BEGINSWITH 's').@count == 1", #Predicate<Article> { $0.labels.filter { $0.name.starts(with: "s") }.count == 1 }),
        ("views + 5 > 20", #Predicate<Article> { $0.views + 5 > 20 }),
        ("TERNARY(rating != nil, rating, 0.0) > 2.5 AND TERNARY(author.age != nil, author.age, 0) >= 30", #Predicate<Article> { ($0.rating ?? 0) > 2.5 && ($0.author?.age ?? 0) >= 30 }),
    ]

    static func sql(_ predicate: QueryPredicate, _ stack: TestStack) throws -> (String, [String]) {
        var compiler = PredicateSQLCompiler(entity: try stack.model.entity(named: "Article"), schema: stack.model.schema)
        let sql = try compiler.condition(predicate)
        return (sql, compiler.arguments.map(\.description))
    }

    static func stack() throws -> (TestStack, ManagedObjectContext) {
        let stack = try TestStack(model: try model())
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let ada = try context.insert("Writer", ["name": "Ada", "age": 36])
            let alan = try context.insert("Writer", ["name": "Alan", "age": 28, "nickname": "AT"])
            let swift = try context.insert("Label", ["name": "swift"])
            let linux = try context.insert("Label", ["name": "linux"])
            for (index, title) in ["Swift", "Swine", "Linux", "Cocoa", "Sweden"].enumerated() {
                let article = try context.insert("Article", ["title": title, "views": Int64(index * 7 + 5), "rating": Double(index), "author": index % 2 == 0 ? ada : alan])
                if index < 2 { try article.addObjects([swift, linux], toRelationship: "labels") } else if index < 4 { try article.addObjects([swift], toRelationship: "labels") }
            }
            _ = try context.insert("Article", ["views": 50, "published": true])
            try context.save()
        }
        return (stack, context)
    }

    @Test("each #Predicate compiles to the same SQL and fetches the same objects as its format string", arguments: 0..<cases.count)
    func sameAsFormat(index: Int) throws {
        let (format, swiftPredicate) = Self.cases[index]
        let (stack, context) = try Self.stack()
        let translated = try QueryPredicate(swiftPredicate)
        let parsed = try QueryPredicate(format: format)
        #expect(try Self.sql(translated, stack) == Self.sql(parsed, stack), "\(format)")
        let typed = try FetchRequest<Article>(entityName: "Article", predicate: swiftPredicate)
        var byFormat = FetchRequest<Article>(entityName: "Article")
        byFormat.predicate = parsed
        try context.performAndWait { () throws in
            let fromSwift = Set(try context.fetch(typed).map(\.objectID))
            let fromFormat = Set(try context.fetch(byFormat).map(\.objectID))
            #expect(fromSwift == fromFormat, "\(format)")
            // The predicate means the same in memory as in SQL.
            let all = try context.fetch(FetchRequest<Article>(entityName: "Article"))
            let inMemory = Set(try all.filter { try swiftPredicate.evaluate($0) }.map(\.objectID))
            #expect(inMemory == fromFormat, "\(format)")
        }
        withExtendedLifetime(stack) {}
    }

    @Test("the cases select something and leave something out")
    func casesAreSelective() throws {
        let (stack, context) = try Self.stack()
        try context.performAndWait { () throws in
            for (format, predicate) in Self.cases {
                let count = try context.count(for: try FetchRequest<Article>(entityName: "Article", predicate: predicate))
                #expect(count > 0 && count < 6, "\(format) selects \(count) of 6")
            }
        }
        withExtendedLifetime(stack) {}
    }

    @Test("setPredicate and dictionary requests take a #Predicate too")
    func setPredicate() throws {
        let (stack, context) = try Self.stack()
        var request = FetchRequest<[String: Any]>(entityName: "Article")
        request.propertiesToFetch = ["title"]
        request.sortDescriptors = [FetchSortDescriptor("title")]
        try request.setPredicate(#Predicate<Article> { $0.author?.nickname == "AT" })
        let titles = try context.performAndWait { try context.fetch(request).compactMap { $0["title"] as? String } }
        #expect(titles == ["Cocoa", "Swine"])
        #expect(try QueryPredicate(#Predicate<Article> { _ in true }) == .truePredicate)
        #expect(try QueryPredicate(#Predicate<Article> { _ in false }) == .falsePredicate)
        withExtendedLifetime(stack) {}
    }

    @Test("constructs without SQL throw .unsupported naming the construct, never fall back to memory")
    func unsupported() throws {
        let names = Self.names
        let unsupported: [(String, Predicate<Article>)] = [
            ("IntRemainder", #Predicate<Article> { $0.views % 2 == 0 }),
            ("IntDivision", #Predicate<Article> { $0.views / 2 > 3 }),
            ("Writer.propertyName(for:)", #Predicate<Article> { $0.author?.shout == "ADA" }),
            ("first", #Predicate<Article> { names.first == $0.title }),
        ]
        for (construct, predicate) in unsupported.prefix(3) {
            #expect {
                _ = try FetchRequest<Article>(entityName: "Article", predicate: predicate)
            } throws: { error in
                let error = error as? NimbusError
                return error?.code == .unsupported && error?.message.contains(construct) == true
            }
        }
        // A sub-expression that uses no variable is a constant: `names.first` is "Ada".
        let constant = try QueryPredicate(unsupported[3].1)
        #expect(constant == (try QueryPredicate(format: "'Ada' == title")))
        var request = FetchRequest<Article>(entityName: "Article")
        #expect(throws: NimbusError.self) { try request.setPredicate(unsupported[0].1) }
        #expect(request.predicate == nil)
    }
}
