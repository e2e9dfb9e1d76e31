import Foundation

extension MappingModel {
    /// Reads a mapping model drawn in Xcode: an `.xcmappingmodel` folder (or its
    /// `xcmapping.xml`), which is a Core Data XML store of Xcode's editing objects: one
    /// `XDDEVMAPPINGMODEL`, an `XDDEVENTITYMAPPING` per entity mapping (`sourcename`,
    /// `destinationname`, `mappingtypename`, `mappingnumber`, `sourcefilterpredicatestring`,
    /// `migrationpolicyclassname`, `userinfodata`) and an `XDDEVATTRIBUTEMAPPING` or
    /// `XDDEVRELATIONSHIPMAPPING` per property (`name`, `valueexpressiondata`: a keyed archive
    /// of the `NSExpression`, or `autogenerateexpression`). Xcode's compiled form (`.cdm`) is
    /// not read.
    ///
    /// For example:
    ///
    /// ```swift
    /// let mapping = try MappingModel(contentsOf: URL(fileURLWithPath: "Model2to3.xcmappingmodel"))
    /// ```
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/io`` when the file is missing,
    ///   ``NimbusError/Code-swift.struct/invalidModel`` naming the file and line when it is
    ///   not a mapping model or holds an expression that cannot be read.
    public init(contentsOf url: URL) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw NimbusError(.io, "no mapping model at \(url.path)")
        }
        let file = isDirectory.boolValue ? url.appendingPathComponent("xcmapping.xml") : url
        let data: Data
        do { data = try Data(contentsOf: file) } catch {
            throw NimbusError(.io, "cannot read \(file.path): \(error.localizedDescription)")
        }
        let root = try XcodeXMLElement.parse(data, file: file.path)
        self = try MappingModelReader(file: file.path).read(root)
    }
}

/// Maps the objects of an `xcmapping.xml` to a ``MappingModel``.
struct MappingModelReader {
    let file: String

    struct Object {
        var element: XcodeXMLElement
        var kind: String
        var attributes: [String: String]
        var references: [String: [String]]
    }

    func invalid(_ message: String, at element: XcodeXMLElement) -> NimbusError {
        NimbusError(.invalidModel, "\(file):\(element.line): \(message)")
    }

    func read(_ root: XcodeXMLElement) throws -> MappingModel {
        guard root.name == "database" else {
            throw invalid("the root element is <\(root.name)>, not a mapping model's <database> (is this a data model?)", at: root)
        }
        var objects: [String: Object] = [:]
        for element in root.children where element.name == "object" {
            guard let id = element["id"] else { continue }
            var attributes: [String: String] = [:], references: [String: [String]] = [:]
            for child in element.children {
                guard let name = child["name"]?.lowercased() else { continue }
                if child.name == "attribute" { attributes[name] = child.text.trimmingCharacters(in: .whitespacesAndNewlines) }
                if child.name == "relationship" { references[name] = (child["idrefs"] ?? "").split(separator: " ").map(String.init) }
            }
            objects[id] = Object(element: element, kind: (element["type"] ?? "").uppercased(), attributes: attributes, references: references)
        }
        guard let model = objects.values.first(where: { $0.kind == "XDDEVMAPPINGMODEL" }) else {
            throw invalid("the file holds no XDDEVMAPPINGMODEL object: not an Xcode mapping model", at: root)
        }
        var entityObjects = (model.references["entitymappings"] ?? []).compactMap { objects[$0] }
        if entityObjects.isEmpty { entityObjects = objects.values.filter { $0.kind == "XDDEVENTITYMAPPING" } }
        entityObjects.sort { Int($0.attributes["mappingnumber"] ?? "") ?? 0 < Int($1.attributes["mappingnumber"] ?? "") ?? 0 }
        let mappings = try entityObjects.map { try entityMapping($0, objects: objects) }
        func version(_ key: String) -> String? {
            guard let path = model.attributes[key], !path.isEmpty else { return nil }
            let last = (path as NSString).lastPathComponent
            return last.hasSuffix(".xcdatamodel") ? String(last.dropLast(".xcdatamodel".count)) : last
        }
        return MappingModel(entityMappings: mappings, source: file, sourceModelVersion: version("sourcemodelpath"),
                            destinationModelVersion: version("destinationmodelpath"))
    }

    private func entityMapping(_ object: Object, objects: [String: Object]) throws -> EntityMapping {
        let source = object.attributes["sourcename"].flatMap { $0.isEmpty ? nil : $0 }
        let destination = object.attributes["destinationname"].flatMap { $0.isEmpty ? nil : $0 }
        let kind: EntityMapping.Kind
        switch object.attributes["mappingtypename"]?.lowercased() {
        case "add": kind = .add
        case "remove": kind = .remove
        case "copy": kind = .copy
        case "transform": kind = .transform
        case "custom": kind = .custom
        case nil, "undefined", "":
            kind = source == nil ? .add : destination == nil ? .remove : .transform
        case _?:
            let given = object.attributes["mappingtypename"] ?? ""
            throw invalid("entity mapping \(source ?? "?") -> \(destination ?? "?") has mapping type \"\(given)\"; expected Add, Remove, Copy, Transform or Custom", at: object.element)
        }
        var policy = object.attributes["migrationpolicyclassname"].flatMap { $0.isEmpty ? nil : $0 }
        if policy == "NSEntityMigrationPolicy" { policy = nil }
        var userInfo: [String: String] = [:]
        if let data = object.attributes["userinfodata"].flatMap({ Data(base64Encoded: $0, options: .ignoreUnknownCharacters) }) {
            userInfo = (try? KeyedArchive(data).stringDictionary()) ?? [:]
        }
        let name = object.attributes["name"].flatMap { $0.isEmpty ? nil : $0 }
        let mappingName = name ?? EntityMapping.defaultName(source: source, destination: destination)
        // Xcode keeps most property mappings as a bare name under an entity mapping that
        // generates their expressions, and fills in `$source.<name>` when it compiles.
        let generates = Self.isTrue(object.attributes["autogenerateexpression"])
        func properties(_ key: String, relationship: Bool) throws -> [PropertyMapping] {
            try (object.references[key] ?? []).compactMap { objects[$0] }.compactMap { property in
                try propertyMapping(property, relationship: relationship, mapping: mappingName, generated: generates)
            }
        }
        var predicate = object.attributes["sourcefilterpredicatestring"].flatMap { $0.isEmpty ? nil : $0 }
        if predicate == "TRUEPREDICATE" { predicate = nil }
        if let flag = object.attributes["autogenerateexpression"], !Self.isTrue(flag),
           let data = object.attributes["sourceexpressiondata"].flatMap({ Data(base64Encoded: $0, options: .ignoreUnknownCharacters) }) {
            throw invalid("entity mapping \(mappingName) has a custom source fetch expression (\(data.count) bytes), which Nimbus cannot run; use a filter predicate instead", at: object.element)
        }
        return EntityMapping(name: name, kind: kind, source: source, destination: destination, sourcePredicate: predicate,
                             migrationPolicyName: policy,
                             attributeMappings: try properties("attributemappings", relationship: false),
                             relationshipMappings: try properties("relationshipmappings", relationship: true),
                             userInfo: userInfo)
    }

    /// A Core Data XML store's Boolean: `1` or `YES` (and `true`).
    static func isTrue(_ text: String?) -> Bool {
        guard let text = text?.uppercased() else { return false }
        return text == "1" || text == "YES" || text == "TRUE"
    }

    /// One property mapping. `generated` is the entity mapping's `autogenerateexpression`:
    /// a property mapping that writes no expression of its own then takes the source's
    /// property of its name (or, for a relationship, the destination objects of the source's
    /// related objects), as Xcode's compiled mapping models do.
    private func propertyMapping(_ object: Object, relationship: Bool, mapping: String, generated: Bool) throws -> PropertyMapping? {
        guard let name = object.attributes["name"] ?? object.attributes["destinationname"], !name.isEmpty else { return nil }
        let written = object.attributes["valueexpressiondata"].map { !$0.isEmpty } == true
            || (object.attributes["valueexpressionstring"] ?? object.attributes["valueexpression"]).map { !$0.isEmpty } == true
        let automatic = Self.isTrue(object.attributes["autogenerateexpression"])
            || (generated && !written && object.attributes["autogenerateexpression"] == nil)
        if !automatic, let text = object.attributes["valueexpressiondata"], !text.isEmpty {
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                throw invalid("\(mapping).\(name): valueexpressiondata is not base64", at: object.element)
            }
            do {
                return PropertyMapping(name, try KeyedArchive(data).expression())
            } catch let error as NimbusError {
                throw invalid("\(mapping).\(name): the value expression cannot be read: \(error.message)", at: object.element)
            }
        }
        if !automatic, let text = object.attributes["valueexpressionstring"] ?? object.attributes["valueexpression"], !text.isEmpty {
            do { return PropertyMapping(name, try MappingExpression(format: text)) } catch let error as NimbusError {
                throw invalid("\(mapping).\(name): the value expression \"\(text)\" cannot be read: \(error.message)", at: object.element)
            }
        }
        if !automatic && object.attributes["sourcekeypath"] == nil { return PropertyMapping(name, nil) }
        // Automatic: the source's property of the same name (or the given key path); for a
        // relationship, the destination objects of the mapping named (or of whichever
        // mapping makes the destination entity, found when the migration runs).
        let keyPath = (object.attributes["sourcekeypath"].flatMap { $0.isEmpty ? nil : $0 } ?? name).split(separator: ".").map(String.init)
        var mapping = PropertyMapping(name, relationship
            ? .function(receiver: .keyPath(variable: "manager", []), selector: "destinationInstancesForEntityMappingNamed:sourceInstances:",
                        arguments: [.constant(.string(object.attributes["sourcemappingname"] ?? "")), .keyPath(variable: "source", keyPath)])
            : .keyPath(variable: "source", keyPath))
        mapping.isAutomatic = true
        return mapping
    }
}
