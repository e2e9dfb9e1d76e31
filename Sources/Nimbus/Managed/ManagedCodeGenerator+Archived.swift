import Foundation

extension ManagedCodeGenerator {
    /// The Swift type of a transformable attribute whose values are keyed archives of a
    /// class Xcode names (`customClassName`), or nil when the class is the app's own.
    ///
    /// For example, `NSArray` gives `[Any]`, `[String]` stays `[String]`, `UIColor` gives
    /// ``ArchivedColor`` and `NSAttributedString` ``ArchivedAttributedString``.
    static func archivedType(of attribute: AttributeDescription) -> String? {
        guard attribute.type == .transformable, let name = attribute.customClassName?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let known = archivedClasses[name] { return known }
        // Swift collection spellings of Foundation values: [String], [String: Int], Set<UUID>.
        let scalars = Set(["String", "Int", "Int64", "Int32", "Int16", "Double", "Float", "Bool", "Date", "Data", "URL", "UUID", "Any", "AnyHashable"])
        let words = name.split { "[]:<>, ".contains($0) }.map(String.init)
        let shaped = name.hasPrefix("[") || name.hasPrefix("Set<") || name.hasPrefix("Array<") || name.hasPrefix("Dictionary<")
        guard shaped, !words.isEmpty, words.allSatisfy({ scalars.contains($0) || ["Set", "Array", "Dictionary"].contains($0) }) else { return nil }
        return name
    }

    private static let archivedClasses: [String: String] = [
        "NSString": "String", "NSMutableString": "String", "NSDate": "Date", "NSData": "Data", "NSMutableData": "Data",
        "NSURL": "URL", "NSUUID": "UUID", "NSArray": "[Any]", "NSMutableArray": "[Any]", "NSOrderedSet": "[Any]",
        "NSDictionary": "[String: Any]", "NSMutableDictionary": "[String: Any]", "NSSet": "Set<AnyHashable>", "NSMutableSet": "Set<AnyHashable>",
        "UIColor": "ArchivedColor", "NSColor": "ArchivedColor", "CGColor": "ArchivedColor",
        "NSAttributedString": "ArchivedAttributedString", "NSMutableAttributedString": "ArchivedAttributedString",
    ]

    /// A typed property over a keyed-archive transformable (the `@Managed` macro leaves
    /// computed properties alone).
    static func archivedLines(_ attribute: AttributeDescription, type: String) -> [String] {
        let transformer = attribute.valueTransformerName ?? "NSKeyedUnarchiveFromData"
        return [
            "    /// A transformable (\(transformer), \(attribute.customClassName ?? type)): a keyed archive.",
            "    public var \(attribute.name): \(type)? {",
            "        get { value(forKey: \(literal(attribute.name))) as? \(type) }",
            "        set { setValue(newValue, forKey: \(literal(attribute.name))) }",
            "    }",
        ]
    }
}
