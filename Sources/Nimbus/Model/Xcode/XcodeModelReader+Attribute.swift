import Foundation

extension XcodeModelReader {
    /// Xcode's `attributeType` names for the types Nimbus stores.
    static let attributeTypes: [String: AttributeType] = [
        "Integer 16": .integer16, "Integer 32": .integer32, "Integer 64": .integer64,
        "Double": .double, "Float": .float, "Decimal": .decimal, "String": .string, "Boolean": .boolean,
        "Date": .date, "Binary": .binaryData, "UUID": .uuid, "URI": .uri, "Transformable": .transformable,
    ]

    /// Value transformers of Apple's that store keyed archives (read by ``ArchiveTransformers``).
    private static let archivingTransformers: Set<String> = [
        "NSSecureUnarchiveFromData", "NSSecureUnarchiveFromDataTransformer", "NSKeyedUnarchiveFromData",
        "NSKeyedUnarchiveFromDataTransformerName", "NSUnarchiveFromData",
    ]

    private static let attributeKeys: Set<String> = [
        "name", "attributeType", "optional", "transient", "defaultValueString", "defaultDateTimeInterval",
        "minValueString", "maxValueString", "minDateTimeInterval", "maxDateTimeInterval", "regularExpressionString",
        "allowsExternalBinaryDataStorage", "preserveAfterDeletion", "valueTransformerName", "renamingIdentifier",
        "elementID", "versionHashModifier", "indexed", "spotlightIndexingEnabled",
    ]
    /// Handled below with a note of their own.
    private static let reportedAttributeKeys: Set<String> = [
        "derived", "derivationExpression", "customClassName", "composite",
        "storedInTruthFile", "allowsCloudEncryption",
    ]
    /// `usesScalarValueType` only shapes the Swift code Xcode generates.
    private static let ignoredAttributeKeys: Set<String> = ["syncable", "usesScalarValueType"]

    /// Reads `<attribute>`; nil (with a note) for attribute kinds Nimbus cannot store yet.
    ///
    /// Xcode writes `optional="YES"` for optional attributes and nothing for required ones.
    mutating func readAttribute(_ element: XcodeXMLElement, entity: String) throws -> AttributeDescription? {
        let name = try required("name", of: element, what: "an attribute of \(entity)")
        let owner = "\(entity).\(name)"
        checkKeys(of: element, owner: owner, understood: Self.attributeKeys,
                  ignored: Self.ignoredAttributeKeys.union(Self.reportedAttributeKeys))
        let isTransient = try flag("transient", of: element, owner: owner) ?? false
        let typeName = element["attributeType"] ?? "Undefined"
        guard let type = Self.attributeTypes[typeName] else {
            switch typeName {
            case "ObjectID":
                note("\(owner): attribute type ObjectID is not supported yet; the attribute was left out")
                return nil
            case "Composite":
                let composite = element["composite"].map { " of type \($0)" } ?? ""
                note("\(owner): composite attribute\(composite) is not supported yet; the attribute was left out")
                return nil
            case "Undefined" where isTransient:
                note("\(owner): transient attribute of Undefined type is not supported yet; the attribute was left out")
                return nil
            case "Undefined":
                throw invalid("attribute \(owner) has no type; only transient attributes may be Undefined", at: element)
            default:
                let known = Self.attributeTypes.keys.sorted().joined(separator: ", ")
                throw invalid("attribute \(owner) has unknown type \"\(typeName)\"; expected one of \(known)", at: element)
            }
        }
        var attribute = AttributeDescription(name, type, isOptional: try flag("optional", of: element, owner: owner) ?? false,
                                             isTransient: isTransient)
        attribute.defaultValue = try defaultValue(of: element, type: type, typeName: typeName, owner: owner)
        try readLimits(of: element, into: &attribute, typeName: typeName, owner: owner)
        if let pattern = element["regularExpressionString"] {
            if type == .string {
                attribute.regularExpression = pattern
            } else {
                note("\(owner): a regular expression applies to strings only; the one on this \(typeName) attribute was ignored")
            }
        }
        attribute.allowsExternalBinaryDataStorage = try flag("allowsExternalBinaryDataStorage", of: element, owner: owner) ?? false
        attribute.preservesValueInHistoryOnDeletion = try flag("preserveAfterDeletion", of: element, owner: owner) ?? false
        attribute.valueTransformerName = element["valueTransformerName"]
        attribute.customClassName = element["customClassName"].flatMap { $0.isEmpty ? nil : $0 }
        attribute.renamingIdentifier = renamingIdentifier(of: element)
        attribute.versionHashModifier = element["versionHashModifier"]
        attribute.isIndexedBySpotlight = try flag("spotlightIndexingEnabled", of: element, owner: owner) ?? false
        for child in element.children {
            guard child.name == "userInfo" else {
                noteUnknownChild(child, owner: owner)
                continue
            }
            attribute.userInfo = try readUserInfo(child, owner: owner)
        }
        try noteUnsupportedSettings(of: element, attribute: attribute, owner: owner)
        if try flag("derived", of: element, owner: owner) == true {
            if let expression = element["derivationExpression"], (try? DerivedAttribute.parse(expression)) != nil {
                attribute.derivationExpression = expression
            } else {
                let expression = element["derivationExpression"].map { " `\($0)`" } ?? ""
                note("\(owner): derivation\(expression) is not an expression Nimbus can compute; the attribute is kept as a plain stored attribute")
            }
        }
        return attribute
    }

    private mutating func noteUnsupportedSettings(of element: XcodeXMLElement, attribute: AttributeDescription, owner: String) throws {
        if let className = element["customClassName"], ManagedCodeGenerator.archivedType(of: attribute) == nil {
            let transformer = attribute.valueTransformerName.map { "under the transformer name \($0)" }
                ?? "and name it in valueTransformerName"
            note("\(owner): custom class \(className) is an Objective-C class name and is not used; register a Codable type with ValueTransformers \(transformer)")
        }
        // Keyed archives of Foundation values are read and written (``ArchiveTransformers``):
        // Apple's transformers, and no transformer at all, need nothing more.
        if attribute.type == .transformable, let transformer = attribute.valueTransformerName,
           !Self.archivingTransformers.contains(transformer), element["customClassName"] == nil {
            note("\(owner): value transformer \(transformer) is the app's own Objective-C class, which Nimbus cannot run; if it is an NSSecureUnarchiveFromDataTransformer subclass, register its classes with ArchiveTransformers.register(_:allowedClasses:); otherwise register a Codable type with ValueTransformers under \(transformer) (values are stored as JSON); until then values are read and written as raw Data")
        }
        if try flag("storedInTruthFile", of: element, owner: owner) == true {
            note("\(owner): storing in an external record file is not supported; the value is stored in the store")
        }
        if try flag("allowsCloudEncryption", of: element, owner: owner) == true {
            note("\(owner): CloudKit encryption is not supported yet; the value syncs unencrypted")
        }
    }

    /// The default value: `defaultValueString`, or `defaultDateTimeInterval` (seconds since
    /// 2001-01-01 00:00 UTC) for dates.
    private mutating func defaultValue(of element: XcodeXMLElement, type: AttributeType, typeName: String,
                                       owner: String) throws -> PropertyValue? {
        if type == .date, let interval = try number("defaultDateTimeInterval", of: element, owner: owner) {
            return .date(Date(timeIntervalSinceReferenceDate: interval))
        }
        guard let text = element["defaultValueString"] else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        func bad() -> NimbusError {
            invalid("attribute \(owner) has default value \"\(text)\", which is not a valid \(typeName)", at: element)
        }
        func converted(_ value: Any?) throws -> PropertyValue {
            guard let value, let converted = try? PropertyValue(value, for: type) else { throw bad() }
            return converted
        }
        // Xcode stores the text as typed and Core Data reads it as a number or a flag, so
        // `NO` on an integer and `0.0` on a Boolean are accepted as Xcode accepts them.
        let flagValue: Int64? = switch trimmed.uppercased() {
        case "YES", "TRUE": 1
        case "NO", "FALSE": 0
        default: nil
        }
        switch type {
        case .integer16, .integer32, .integer64:
            return try converted(Int64(trimmed) ?? Double(trimmed).flatMap { Int64(exactly: $0) } ?? flagValue)
        case .double, .float:
            return try converted(Double(trimmed) ?? flagValue.map(Double.init))
        case .decimal:
            return try converted(Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX")))
        case .boolean:
            if let flagValue { return .bool(flagValue == 1) }
            guard let number = Double(trimmed), number.isFinite else { throw bad() }
            return .bool(number != 0)
        case .string:
            return .string(text)
        case .uuid:
            return try converted(UUID(uuidString: trimmed))
        case .uri:
            return try converted(URL(string: trimmed))
        case .date:
            return try converted(Double(trimmed).map { Date(timeIntervalSinceReferenceDate: $0) })
        case .binaryData, .transformable:
            note("\(owner): a default value for a \(typeName) attribute is not supported; it was ignored")
            return nil
        }
    }

    /// Validation limits. Xcode writes `minValueString`/`maxValueString` for numbers (values)
    /// and for strings and binary data (lengths), `min/maxDateTimeInterval` for dates.
    private mutating func readLimits(of element: XcodeXMLElement, into attribute: inout AttributeDescription,
                                     typeName: String, owner: String) throws {
        var unused: [String] = []
        switch attribute.type {
        case .integer16, .integer32, .integer64, .double, .float, .decimal:
            attribute.minValue = try number("minValueString", of: element, owner: owner)
            attribute.maxValue = try number("maxValueString", of: element, owner: owner)
            unused = ["minDateTimeInterval", "maxDateTimeInterval"]
        case .string, .binaryData:
            attribute.minLength = try integer("minValueString", of: element, owner: owner)
            attribute.maxLength = try integer("maxValueString", of: element, owner: owner)
            unused = ["minDateTimeInterval", "maxDateTimeInterval"]
        case .date:
            attribute.minValue = try number("minDateTimeInterval", of: element, owner: owner)
            attribute.maxValue = try number("maxDateTimeInterval", of: element, owner: owner)
            unused = ["minValueString", "maxValueString"]
        case .boolean, .uuid, .uri, .transformable:
            unused = ["minValueString", "maxValueString", "minDateTimeInterval", "maxDateTimeInterval"]
        }
        for key in unused where element[key] != nil {
            note("\(owner): \(key) does not apply to a \(typeName) attribute; it was ignored")
        }
    }
}
