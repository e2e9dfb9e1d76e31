import Foundation

/// A fetched property of an entity (Core Data's `NSFetchedPropertyDescription`), as Xcode
/// draws it: reading it with `value(forKey:)` fetches the objects of ``entityName`` that
/// match ``predicateFormat``, where `$FETCH_SOURCE` is the object read, as an array.
///
/// For example, an author's unpublished posts:
///
/// ```swift
/// FetchedPropertyDescription(name: "drafts", entityName: "Post", predicateFormat: "author == $FETCH_SOURCE AND isDraft == YES")
/// // later: let drafts = author.value(forKey: "drafts") as? [ManagedObject]
/// ```
///
/// Like Core Data's, the result is fetched when first read and kept until the object is
/// refreshed; it is not stored and does not change the entity's version hash.
public struct FetchedPropertyDescription: Sendable, Hashable, Codable {
    /// The property's name (its key in `value(forKey:)`).
    public var name: String
    /// The entity fetched.
    public var entityName: String
    /// Which objects; may use `$FETCH_SOURCE` (the object whose property is read).
    public var predicateFormat: String?

    /// Creates a fetched property.
    public init(name: String, entityName: String, predicateFormat: String? = nil) {
        self.name = name
        self.entityName = entityName
        self.predicateFormat = predicateFormat
    }
}

/// A stored fetch request of a model (Core Data's fetch request templates, drawn in Xcode's
/// model editor): an entity and a predicate that may use `$variables`.
///
/// For example:
///
/// ```swift
/// let request = try model.fetchRequestFromTemplate(withName: "postsByAuthor", substitutionVariables: ["NAME": "Ada"])
/// ```
public struct FetchRequestTemplate: Sendable, Hashable, Codable {
    /// The template's name.
    public var name: String
    /// The entity fetched.
    public var entityName: String
    /// Which objects; nil for all.
    public var predicateFormat: String?

    /// Creates a template.
    public init(name: String, entityName: String, predicateFormat: String? = nil) {
        self.name = name
        self.entityName = entityName
        self.predicateFormat = predicateFormat
    }
}

extension ManagedObjectModel {
    /// The fetch request templates, by name, as fetch requests (with their `$variables` unbound).
    /// A template whose predicate does not parse is left out (it would otherwise fetch every
    /// object); ``fetchRequestFromTemplate(withName:substitutionVariables:)`` reports why.
    public var fetchRequestTemplatesByName: [String: FetchRequest<ManagedObject>] {
        var result: [String: FetchRequest<ManagedObject>] = [:]
        for (name, template) in fetchRequestTemplates {
            var request = FetchRequest<ManagedObject>(entityName: template.entityName)
            if let format = template.predicateFormat {
                guard let predicate = try? QueryPredicate(format: format) else { continue }
                request.predicate = predicate
            }
            result[name] = request
        }
        return result
    }

    /// The fetch request of a template, with its `$variables` unbound; nil for an unknown name.
    public func fetchRequestTemplate(forName name: String) -> FetchRequest<ManagedObject>? {
        fetchRequestTemplatesByName[name]
    }

    /// The fetch request of a template with its variables bound, as Core Data's
    /// `fetchRequestFromTemplate(withName:substitutionVariables:)`; nil for an unknown name.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/invalidPredicate`` when the predicate does
    ///   not parse or a value cannot be substituted.
    public func fetchRequestFromTemplate(withName name: String, substitutionVariables: [String: Any]) throws -> FetchRequest<ManagedObject>? {
        guard let template = fetchRequestTemplates[name] else { return nil }
        var request = FetchRequest<ManagedObject>(entityName: template.entityName)
        if let format = template.predicateFormat {
            request.predicate = try QueryPredicate(format: format).withSubstitutionVariables(substitutionVariables)
        }
        return request
    }

    /// Checks that templates and fetched properties name known entities and parse.
    static func checkFetches(entities: [EntityDescription], templates: [String: FetchRequestTemplate], problems: inout [String]) {
        let names = Set(entities.map(\.name))
        func check(_ label: String, _ entityName: String, _ format: String?) {
            if !names.contains(entityName) { problems.append("\(label) fetches unknown entity \(entityName)") }
            if let format {
                do { _ = try QueryPredicate(format: format) } catch let error as NimbusError {
                    problems.append("\(label) has a malformed predicate \"\(format)\": \(error.message)")
                } catch {
                    problems.append("\(label) has a malformed predicate \"\(format)\": \(error)")
                }
            }
        }
        for template in templates.values.sorted(by: { $0.name < $1.name }) {
            check("fetch request template \(template.name)", template.entityName, template.predicateFormat)
        }
        for entity in entities {
            for fetched in entity.fetchedProperties {
                check("fetched property \(entity.name).\(fetched.name)", fetched.entityName, fetched.predicateFormat)
                if entity.property(named: fetched.name) != nil {
                    problems.append("fetched property \(entity.name).\(fetched.name) has the name of a property")
                }
            }
        }
    }
}

extension ManagedObject {
    /// The value of a fetched property: the matching objects, fetched in the object's context.
    func fetchedPropertyValue(_ fetched: FetchedPropertyDescription) throws -> [ManagedObject] {
        guard let context = managedObjectContext else { return [] }
        var request = FetchRequest<ManagedObject>(entityName: fetched.entityName)
        if let format = fetched.predicateFormat {
            request.predicate = try QueryPredicate(format: format).withSubstitutionVariables(["FETCH_SOURCE": self])
        }
        return try context.fetch(request)
    }
}
