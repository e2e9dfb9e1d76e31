import Foundation
import Nimbus
import NimbusTesting
import Testing

// A recipes app's model, as a Core Data app ported to @Managed declares it: enums stored as
// their raw values, an ordered to-many of ingredients, a decimal price, a URL, external
// photo data, and a class's own statics, methods and computed properties beside its
// stored ones.

enum Difficulty: Int16, ManagedRawRepresentable { case easy, medium, hard }
enum Course: String, ManagedRawRepresentable { case starter, main, dessert }

@Managed final class Recipe: ManagedObject {
    @Attribute(.indexed) var name: String = ""
    var prepMinutes: Int32 = 0
    var rating: Float = 0
    var difficulty: Difficulty = .medium
    var course: Course?
    var price: Decimal?
    var source: URL?
    @Attribute(.externalStorage) var photo: Data?
    @Relationship(deleteRule: .cascade, inverse: \Ingredient.recipe) var ingredients: [Ingredient]
    var category: Category?

    static let untitled = "Untitled"
    var summary: String { "\(name) (\(prepMinutes) min)" }
    func minutes(servings: Int) -> Int32 { prepMinutes * Int32(servings) }
}

@Managed final class Ingredient: ManagedObject {
    var name: String?
    var displayOrder: Int16 = 0
    var recipe: Recipe?
}

@Managed final class Category: ManagedObject {
    @Attribute(.unique) var name: String = ""
    var recipes: Set<Recipe>
}

@Suite("A recipes app's model: enums, sorting by key paths")
struct RecipesModelTests {
    func context(_ folder: TemporaryDirectory) throws -> ManagedObjectContext {
        let model = try ManagedObjectModel(Recipe.self, Ingredient.self, Category.self)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: folder.file("Recipes.sqlite")))
        return ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
    }

    /// Five recipes: "Cake 0" … "Cake 4", 0 … 40 minutes, difficulty hard for even ones.
    func insertRecipes(_ context: ManagedObjectContext) throws {
        try context.performAndWait {
            let dessert = Category(context: context)
            dessert.name = "Dessert"
            for i in 0..<5 {
                let recipe = Recipe(context: context)
                recipe.name = "Cake \(i)"
                recipe.prepMinutes = Int32(10 * i)
                recipe.rating = Float(i) / 2
                recipe.difficulty = i % 2 == 0 ? .hard : .easy
                recipe.course = i == 4 ? nil : .dessert
                recipe.category = dessert
                for j in 0..<3 {
                    let ingredient = Ingredient(context: context)
                    ingredient.name = "ingredient \(j)"
                    ingredient.displayOrder = Int16(j)
                    recipe.ingredients.append(ingredient)
                }
            }
            try context.save()
            context.reset()
        }
    }

    @Test("an enum is an attribute of its raw type; statics, methods and computed properties are the class's own")
    func entity() throws {
        let recipe = try ManagedObjectModel(Recipe.self, Ingredient.self, Category.self).entity(named: "Recipe")
        #expect(recipe.properties.map(\.name) == ["category", "course", "difficulty", "ingredients", "name", "photo", "prepMinutes", "price", "rating", "source"])
        #expect(recipe.attributesByName["difficulty"]?.type == .integer16)
        #expect(recipe.attributesByName["difficulty"]?.isOptional == false)
        #expect(recipe.attributesByName["difficulty"]?.defaultValue == .integer(1))
        #expect(recipe.attributesByName["course"]?.type == .string)
        #expect(recipe.attributesByName["course"]?.isOptional == true)
        #expect(recipe.attributesByName["course"]?.valueTransformerName == nil)
    }

    @Test("enums save as raw values, read back typed, and compare in #Predicate, format strings and setValue")
    func enumsRoundTrip() throws {
        let folder = try TemporaryDirectory()
        let context = try context(folder)
        try insertRecipes(context)
        try context.performAndWait {
            let all = try context.fetch(FetchRequest<Recipe>(entityName: "Recipe")).sorted { $0.name < $1.name }
            #expect(all.map(\.difficulty) == [.hard, .easy, .hard, .easy, .hard])
            #expect(all.map(\.course) == [.dessert, .dessert, .dessert, .dessert, nil])
            #expect(all[0].value(forKey: "difficulty") as? Int16 == 2)
            #expect(all[0].value(forKey: "course") as? String == "dessert")

            let hard = Difficulty.hard
            let hardOnes = try context.fetch(FetchRequest<Recipe>(entityName: "Recipe", predicate: #Predicate<Recipe> { $0.difficulty == hard }))
            #expect(Set(hardOnes.map(\.name)) == ["Cake 0", "Cake 2", "Cake 4"])
            let atLeastMedium = [Difficulty.medium, Difficulty.hard]
            #expect(try context.count(for: FetchRequest<Recipe>(entityName: "Recipe", predicate: #Predicate<Recipe> { atLeastMedium.contains($0.difficulty) })) == 3)
            do {
                _ = try FetchRequest<Recipe>(entityName: "Recipe", predicate: #Predicate<Recipe> { $0.difficulty.rawValue >= 1 })
                Issue.record("a property of an enum was taken for the stored attribute")
            } catch let error as NimbusError {
                #expect(error.code == .unsupported)
                #expect(error.message.contains("compare the Difficulty itself"))
            }
            let courses = [Course.main, Course.dessert]
            let served = try context.count(for: FetchRequest<Recipe>(entityName: "Recipe", predicate: #Predicate<Recipe> { $0.course.flatMap { courses.contains($0) } ?? false }))
            #expect(served == 4)
            let dessert = Course.dessert
            let notDessert = try context.fetch(FetchRequest<Recipe>(entityName: "Recipe", predicate: #Predicate<Recipe> { $0.course != dessert }))
            // As in Core Data (and Swift): nil is not dessert.
            #expect(notDessert.map(\.name) == ["Cake 4"])

            var formatted = FetchRequest<Recipe>(entityName: "Recipe")
            formatted.predicate = try QueryPredicate(format: "difficulty == %@ AND course == %@", Difficulty.easy, Course.dessert)
            #expect(Set(try context.fetch(formatted).map(\.name)) == ["Cake 1", "Cake 3"])

            all[1].setValue(Difficulty.medium, forKey: "difficulty")
            #expect(all[1].difficulty == .medium)
            try all[1].setValidatedValue(Course.main, forKey: "course")
            #expect(all[1].course == .main)
            try context.save()
        }
        let other = try self.context(folder)
        try other.performAndWait {
            let cake = try #require(try other.fetch(FetchRequest<Recipe>(entityName: "Recipe", predicate: #Predicate<Recipe> { $0.name == "Cake 1" })).first)
            #expect(cake.difficulty == .medium && cake.course == .main)
        }
    }

    @Test("a raw value this version has no case for reads as the declared default (or nil) and is kept until set")
    func unknownRawValues() throws {
        let folder = try TemporaryDirectory()
        let context = try context(folder)
        try context.performAndWait {
            let recipe = Recipe(context: context)
            recipe.name = "From a newer app"
            // What a newer version of the app (with more cases) wrote, synced here.
            recipe.setValue(7, forKey: "difficulty")
            recipe.setValue("brunch", forKey: "course")
            try context.save()
            context.reset()
            let read = try #require(try context.fetch(FetchRequest<Recipe>(entityName: "Recipe")).first)
            #expect(read.difficulty == .medium)
            #expect(read.course == nil)
            read.rating = 4.5
            try context.save()
            context.reset()
            let again = try #require(try context.fetch(FetchRequest<Recipe>(entityName: "Recipe")).first)
            #expect(again.value(forKey: "difficulty") as? Int16 == 7)
            #expect(again.value(forKey: "course") as? String == "brunch")
            #expect(again.rating == 4.5)
            again.difficulty = .hard
            try context.save()
            #expect(again.value(forKey: "difficulty") as? Int16 == 2)
        }
    }

    @Test("an enum value of the wrong raw type is refused with a typed error and changes nothing")
    func wrongType() throws {
        let folder = try TemporaryDirectory()
        let context = try context(folder)
        try context.performAndWait {
            let recipe = Recipe(context: context)
            recipe.name = "Soup"
            // A String enum given to an integer attribute, and an out-of-range raw value.
            #expect(throws: NimbusError.self) { try recipe.setValidatedValue(Course.main, forKey: "difficulty") }
            #expect(throws: NimbusError.self) { try recipe.setValidatedValue(Int64(Int32.max), forKey: "difficulty") }
            #expect(recipe.difficulty == .medium)
            #expect(recipe.value(forKey: "difficulty") as? Int16 == 1)
            do {
                try recipe.setValidatedValue(Course.main, forKey: "prepMinutes")
                Issue.record("a String enum was stored in an integer attribute")
            } catch let error as NimbusError {
                #expect(error.code == .typeMismatch)
            }
            #expect(recipe.prepMinutes == 0)
        }
    }

    @Test("sort descriptors from key paths and from Foundation's SortDescriptor")
    func keyPathSorting() throws {
        let folder = try TemporaryDirectory()
        let context = try context(folder)
        try insertRecipes(context)
        try context.performAndWait {
            var request = Recipe.fetchRequest()
            request.sortDescriptors = [try FetchSortDescriptor(\Recipe.prepMinutes, ascending: false)]
            #expect(try request.execute().map(\.name) == ["Cake 4", "Cake 3", "Cake 2", "Cake 1", "Cake 0"])

            request.sortDescriptors = [try FetchSortDescriptor(\Recipe.difficulty, ascending: false), try FetchSortDescriptor(\Recipe.name)]
            #expect(request.sortDescriptors == [FetchSortDescriptor("difficulty", ascending: false), FetchSortDescriptor("name")])
            #expect(try request.execute().map(\.name) == ["Cake 0", "Cake 2", "Cake 4", "Cake 1", "Cake 3"])
            try request.setSortDescriptors([SortDescriptor(\Recipe.rating, order: .reverse)])
            #expect(try request.execute().map(\.name) == ["Cake 4", "Cake 3", "Cake 2", "Cake 1", "Cake 0"])

            try request.setSortDescriptors([SortDescriptor(\Recipe.name, comparator: .lexical, order: .reverse), SortDescriptor(\Recipe.rating)])
            #expect(request.sortDescriptors == [FetchSortDescriptor("name", ascending: false), FetchSortDescriptor("rating")])
            #expect(try request.execute().map(\.name) == ["Cake 4", "Cake 3", "Cake 2", "Cake 1", "Cake 0"])
            request.sortDescriptors = [try FetchSortDescriptor(\Recipe.name, comparison: .localizedStandard)]
            #expect(request.sortDescriptors == [FetchSortDescriptor("name", comparison: .localizedStandard)])

            let quick = try Recipe.fetchRequest(#Predicate { $0.prepMinutes < 30 }, sortBy: [SortDescriptor(\.prepMinutes, order: .reverse)])
            #expect(quick.entityName == "Recipe")
            #expect(try quick.execute().map(\.name) == ["Cake 2", "Cake 1", "Cake 0"])
            #expect(try Recipe.fetchRequest(sortBy: [SortDescriptor(\.name)]).execute().count == 5)

            // Case-insensitive search, which #Predicate cannot say on Linux, joined to a typed predicate.
            var search = Recipe.fetchRequest()
            search.predicate = try QueryPredicate(#Predicate<Recipe> { $0.prepMinutes >= 20 }) && QueryPredicate(format: "name CONTAINS[cd] %@", "CAKE")
            search.sortDescriptors = [try FetchSortDescriptor(\Recipe.name)]
            #expect(try search.execute().map(\.name) == ["Cake 2", "Cake 3", "Cake 4"])
            search.predicate = try !QueryPredicate(format: "name ENDSWITH %@", "4") && (QueryPredicate(format: "prepMinutes == 0") || QueryPredicate(format: "prepMinutes == 40") || QueryPredicate(format: "prepMinutes == 10"))
            #expect(try search.execute().map(\.name) == ["Cake 0", "Cake 1"])
            if case let .and(parts) = search.predicate!, case let .or(alternatives) = parts[1] {
                #expect(parts.count == 2 && alternatives.count == 3, "nested ORs are one disjunction")
            } else {
                Issue.record("&& of a negation and a disjunction is not an AND of two")
            }

            var ingredients = Ingredient.fetchRequest()
            try ingredients.setPredicate(#Predicate<Ingredient> { $0.recipe?.name == "Cake 3" })
            ingredients.sortDescriptors = [try FetchSortDescriptor(\Ingredient.displayOrder, ascending: false)]
            #expect(try ingredients.execute().map(\.displayOrder) == [2, 1, 0])
        }
    }

    @Test("a key path that reads no stored property cannot sort, and the request keeps its sort")
    func unsortableKeyPaths() throws {
        #expect(throws: NimbusError.self) { try FetchSortDescriptor(\Recipe.summary) }
        #expect(throws: NimbusError.self) { try FetchSortDescriptor(\Recipe.category?.name) }
        var request = Recipe.fetchRequest()
        request.sortDescriptors = [FetchSortDescriptor("name")]
        do {
            try request.setSortDescriptors([SortDescriptor(\Recipe.rating), SortDescriptor(\Recipe.summary)])
            Issue.record("a computed property was accepted as a sort key")
        } catch let error as NimbusError {
            #expect(error.code == .unsupported)
            #expect(error.message.contains("summary") || error.message.contains("Recipe"))
        }
        #expect(request.sortDescriptors == [FetchSortDescriptor("name")])
    }
}
