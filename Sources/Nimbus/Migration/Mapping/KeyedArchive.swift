import Foundation

/// Reads the `NSKeyedArchiver` archives Xcode keeps in a mapping model: value
/// expressions (`NSExpression`), a mapping's user info (`NSDictionary`), and a custom
/// source fetch. Only the classes those hold are understood.
struct KeyedArchive {
    let objects: [BinaryPropertyList.Value]
    let root: Int

    /// Opens an archive (binary property list).
    init(_ data: Data) throws {
        guard case let .dictionary(top) = try BinaryPropertyList.parse(data),
              case let .array(objects)? = top["$objects"],
              case let .dictionary(roots)? = top["$top"], case let .uid(root)? = roots["root"] ?? roots.values.first else {
            throw NimbusError(.invalidArgument, "not a keyed archive")
        }
        self.objects = objects
        self.root = root
    }

    func object(_ uid: Int) throws -> BinaryPropertyList.Value {
        guard objects.indices.contains(uid) else { throw NimbusError(.invalidArgument, "a keyed archive refers to object \(uid), which it does not hold") }
        return objects[uid]
    }

    func resolve(_ value: BinaryPropertyList.Value?) throws -> BinaryPropertyList.Value? {
        guard let value else { return nil }
        if case let .uid(uid) = value { return try resolve(try object(uid)) }
        if case .string("$null") = value { return nil }
        return value
    }

    func className(_ fields: [String: BinaryPropertyList.Value]) throws -> String {
        guard case let .dictionary(info)? = try resolve(fields["$class"]), case let .string(name)? = info["$classname"] else { return "" }
        return name
    }

    /// A plain Foundation value: string, number, date, data, array, dictionary (nil for `$null`).
    private func plain(_ value: BinaryPropertyList.Value?) throws -> Any? {
        switch try resolve(value) {
        case nil, .null?: return nil
        case let .bool(v)?: return v
        case let .integer(v)?: return v
        case let .real(v)?: return v
        case let .date(v)?: return v
        case let .data(v)?: return v
        case let .string(v)?: return v
        case .uid?: return nil
        case let .array(items)?: return try items.map { try plain($0) as Any }
        case let .dictionary(fields)?:
            switch try className(fields) {
            case "NSDate": if case let .real(t)? = fields["NS.time"] { return Date(timeIntervalSinceReferenceDate: t) }; return nil
            case "NSMutableString", "NSString": return try plain(fields["NS.string"])
            case "NSMutableData", "NSData": return try plain(fields["NS.data"])
            case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet":
                guard case let .array(items)? = fields["NS.objects"] else { return [Any]() }
                return try items.map { try plain($0) as Any }
            case "NSDictionary", "NSMutableDictionary":
                guard case let .array(keys)? = fields["NS.keys"], case let .array(values)? = fields["NS.objects"] else { return [String: Any]() }
                var result: [String: Any] = [:]
                for (key, value) in zip(keys, values) {
                    if let key = try plain(key) as? String { result[key] = try plain(value) }
                }
                return result
            case "NSUUID":
                if case let .data(bytes)? = fields["NS.uuidbytes"], bytes.count == 16 {
                    return bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
                }
                return nil
            case "NSURL":
                return (try plain(fields["NS.relative"]) as? String).flatMap(URL.init(string:))
            default:
                return nil
            }
        }
    }

    /// The root as a string dictionary (a mapping's user info).
    func stringDictionary() throws -> [String: String] {
        guard let dictionary = try plain(.uid(root)) as? [String: Any] else { return [:] }
        return dictionary.compactMapValues { $0 as? String ?? ($0 as? Int64).map(String.init) }
    }

    /// The root as a mapping value expression.
    func expression() throws -> MappingExpression {
        try expression(.uid(root))
    }

    private func expression(_ value: BinaryPropertyList.Value?) throws -> MappingExpression {
        guard case let .dictionary(fields)? = try resolve(value) else {
            throw NimbusError(.invalidArgument, "an archived expression is not an object")
        }
        let name = try className(fields)
        switch name {
        case "NSConstantValueExpression":
            return .constant(try Self.propertyValue(try plain(fields["NSConstantValue"])))
        case "NSVariableExpression":
            guard let variable = try plain(fields["NSVariable"]) as? String else { throw NimbusError(.invalidArgument, "a variable expression without a name") }
            return .keyPath(variable: variable, [])
        case "NSSelfExpression":
            return .expression(.evaluatedObject)
        case "NSKeyPathSpecifierExpression":
            return .constant(.string(try plain(fields["NSKeyPath"]) as? String ?? ""))
        case "NSKeyPathExpression", "NSFunctionExpression":
            let selector = try plain(fields["NSSelectorName"]) as? String ?? ""
            let operand = try? expression(fields["NSOperand"])
            var arguments: [MappingExpression] = []
            if case let .dictionary(list)? = try resolve(fields["NSArguments"]), case let .array(items)? = list["NS.objects"] {
                arguments = try items.map { try expression($0) }
            }
            if selector == "valueForKeyPath:", case let .constant(.string(path))? = arguments.first {
                let components = path.split(separator: ".").map(String.init)
                switch operand {
                case let .keyPath(variable, base)?: return .keyPath(variable: variable, base + components)
                default: return .expression(.keyPath(components))
                }
            }
            // NSExpression's own functions (add:to:, uppercase:, …) have a class as operand.
            if PredicateParser.knownFunctions.contains(selector) || PredicateBitwise.names.contains(selector) {
                return .function(receiver: nil, selector: selector, arguments: arguments)
            }
            guard let operand else { throw NimbusError(.invalidArgument, "FUNCTION \(selector) has no receiver") }
            return .function(receiver: operand, selector: selector, arguments: arguments)
        default:
            throw NimbusError(.unsupported, "an archived \(name.isEmpty ? "object" : name) is not an expression Nimbus can run")
        }
    }

    private static func propertyValue(_ value: Any?) throws -> PropertyValue {
        switch value {
        case nil: .null
        case let v as Bool: .bool(v)
        case let v as Int64: .integer(v)
        case let v as Double: .double(v)
        case let v as String: .string(v)
        case let v as Date: .date(v)
        case let v as Data: .data(v)
        case let v as UUID: .uuid(v)
        case let v as URL: .url(v)
        default: throw NimbusError(.unsupported, "an archived constant of type \(type(of: value!)) is not supported")
        }
    }
}
