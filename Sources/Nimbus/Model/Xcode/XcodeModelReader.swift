import Foundation

/// Maps the element tree of an Xcode model's `contents` file to Nimbus model descriptions.
///
/// What maps is mapped; what Xcode writes only for its editor (layout, code generation,
/// tool versions) is ignored on purpose; everything else is kept as a readable note in
/// ``notes``, which becomes ``ManagedObjectModel/unsupportedFeatures``. Problems that make
/// the model unusable (unknown attribute types, unparsable numbers) throw
/// ``NimbusError/Code-swift.struct/invalidModel`` naming the file and line.
struct XcodeModelReader {
    /// What a `contents` file declares, ready for ``ManagedObjectModel/init(entities:configurations:versionIdentifiers:unsupportedFeatures:)``.
    struct Declarations {
        var entities: [EntityDescription] = []
        var configurations: [String: [String]] = [:]
        var versionIdentifiers: Set<String> = []
        var unsupportedFeatures: [String] = []
        var fetchRequestTemplates: [String: FetchRequestTemplate] = [:]
    }

    /// The file name used in error messages.
    let file: String
    /// Parsed but unsupported features, as readable notes naming entity and property.
    private(set) var notes: [String] = []

    static let modelType = "com.apple.IDECoreDataModeler.DataModel"

    private static let modelKeys: Set<String> = ["type", "userDefinedModelVersionIdentifier"]
    /// Written by Xcode for itself: tool versions, languages, CloudKit validation switch.
    private static let ignoredModelKeys: Set<String> = [
        "documentVersion", "lastSavedToolsVersion", "systemVersion", "minimumToolsVersion", "sourceLanguage",
        "usedWithCloudKit", "name", "macOSVersion", "iOSVersion", "watchOSVersion", "tvOSVersion",
    ]

    /// Reads a whole `contents` file.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/invalidModel`` for malformed XML or content.
    static func read(_ data: Data, file: String) throws -> Declarations {
        let root = try XcodeXMLElement.parse(data, file: file)
        var reader = XcodeModelReader(file: file)
        return try reader.read(root)
    }

    mutating func read(_ root: XcodeXMLElement) throws -> Declarations {
        guard root.name == "model" else {
            throw invalid("the root element is <\(root.name)>, not an Xcode data model's <model>", at: root)
        }
        if let type = root["type"], type != Self.modelType {
            throw invalid("the model type is \(type), not \(Self.modelType) (is this a mapping model?)", at: root)
        }
        checkKeys(of: root, owner: "model", understood: Self.modelKeys, ignored: Self.ignoredModelKeys)
        var declarations = Declarations()
        if let identifier = root["userDefinedModelVersionIdentifier"], !identifier.isEmpty {
            declarations.versionIdentifiers = [identifier]
        }
        for child in root.children {
            switch child.name {
            case "entity":
                declarations.entities.append(try readEntity(child))
            case "configuration":
                let (name, members) = try readConfiguration(child)
                declarations.configurations[name] = members
            case "fetchRequest":
                if let name = child["name"], let entity = child["entity"] {
                    declarations.fetchRequestTemplates[name] = FetchRequestTemplate(name: name, entityName: entity, predicateFormat: child["predicateString"])
                } else {
                    note("model: fetch request template \(child["name"] ?? "(unnamed)") (\(describeFetch(child))) has no name or entity; it was left out")
                }
            case "composite", "compositeAttribute":
                note("model: composite attribute type \(child["name"] ?? "(unnamed)") is not supported yet; it was left out")
            case "userInfo":
                let entries = try readUserInfo(child, owner: "model")
                note("model: user info (\(entries.keys.sorted().joined(separator: ", "))) has no place in a ManagedObjectModel (Core Data has none either); it was left out")
            case "elements":
                continue  // Diagram layout: positions and sizes of the boxes in Xcode's editor.
            default:
                noteUnknownChild(child, owner: "model")
            }
        }
        declarations.unsupportedFeatures = notes
        return declarations
    }

    private mutating func readConfiguration(_ element: XcodeXMLElement) throws -> (String, [String]) {
        let name = try required("name", of: element, what: "a configuration")
        checkKeys(of: element, owner: "configuration \(name)", understood: ["name"], ignored: ["usedWithCloudKit"])
        if try flag("usedWithCloudKit", of: element, owner: "configuration \(name)") == true {
            note("configuration \(name): usedWithCloudKit is not used; choose what syncs on the CloudContainer")
        }
        var members: [String] = []
        for child in element.children {
            guard child.name == "memberEntity" else {
                noteUnknownChild(child, owner: "configuration \(name)")
                continue
            }
            members.append(try required("name", of: child, what: "a member entity of configuration \(name)"))
        }
        return (name, members)
    }

    // MARK: - Shared helpers

    /// An `invalidModel` error naming the file and the element's line.
    func invalid(_ message: String, at element: XcodeXMLElement) -> NimbusError {
        NimbusError(.invalidModel, "\(file):\(element.line): \(message)")
    }

    /// Records a parsed but unsupported feature.
    mutating func note(_ text: String) {
        notes.append(text)
    }

    /// Notes every XML attribute of `element` that is neither understood nor ignored on
    /// purpose, so nothing a newer Xcode writes disappears silently.
    mutating func checkKeys(of element: XcodeXMLElement, owner: String, understood: Set<String>, ignored: Set<String>) {
        for key in element.attributes.keys.sorted() where !understood.contains(key) && !ignored.contains(key) {
            note("\(owner): <\(element.name)> setting \(key)=\"\(element[key]!)\" is not understood; it was ignored")
        }
    }

    mutating func noteUnknownChild(_ child: XcodeXMLElement, owner: String) {
        let name = child["name"].map { " \($0)" } ?? ""
        note("\(owner): element <\(child.name)>\(name) is not understood; it was left out")
    }

    /// A required XML attribute.
    func required(_ key: String, of element: XcodeXMLElement, what: String) throws -> String {
        guard let value = element[key], !value.isEmpty else {
            throw invalid("\(what) has no \(key)", at: element)
        }
        return value
    }

    /// A `YES`/`NO` flag; nil when absent.
    func flag(_ key: String, of element: XcodeXMLElement, owner: String) throws -> Bool? {
        guard let value = element[key] else { return nil }
        switch value {
        case "YES", "true", "1": return true
        case "NO", "false", "0": return false
        default: throw invalid("\(owner) has \(key)=\"\(value)\"; expected YES or NO", at: element)
        }
    }

    /// A whole number; nil when absent.
    func integer(_ key: String, of element: XcodeXMLElement, owner: String) throws -> Int? {
        guard let value = element[key] else { return nil }
        guard let int = Int(value.trimmingCharacters(in: .whitespaces)) else {
            throw invalid("\(owner) has \(key)=\"\(value)\", which is not a whole number", at: element)
        }
        return int
    }

    /// A number; nil when absent.
    func number(_ key: String, of element: XcodeXMLElement, owner: String) throws -> Double? {
        guard let value = element[key] else { return nil }
        guard let double = Double(value.trimmingCharacters(in: .whitespaces)) else {
            throw invalid("\(owner) has \(key)=\"\(value)\", which is not a number", at: element)
        }
        return double
    }

    /// `<userInfo><entry key= value=/></userInfo>` as a dictionary.
    mutating func readUserInfo(_ element: XcodeXMLElement, owner: String) throws -> [String: String] {
        var entries: [String: String] = [:]
        for entry in element.children {
            guard entry.name == "entry" else {
                noteUnknownChild(entry, owner: "\(owner) user info")
                continue
            }
            let key = try required("key", of: entry, what: "a user info entry of \(owner)")
            entries[key] = entry["value"] ?? ""
        }
        return entries
    }

    /// Describes a fetch request in notes, such as "on Post where `isDraft == YES`".
    func describeFetch(_ request: XcodeXMLElement) -> String {
        var parts: [String] = []
        if let entity = request["entity"] { parts.append("on \(entity)") }
        if let predicate = request["predicateString"] { parts.append("where `\(predicate)`") }
        return parts.isEmpty ? "without entity or predicate" : parts.joined(separator: " ")
    }
}
