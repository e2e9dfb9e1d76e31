import Foundation

/// The Foundation methods value expressions call on values, as
/// `FUNCTION($source.title, "uppercaseString")`: the string, number and collection
/// methods mapping models use. Anything else belongs in a custom policy's
/// `function(named:arguments:manager:)`.
enum MappingFunctions {
    static func call(_ selector: String, on target: Any?, _ arguments: [Any?], in expression: MappingExpression) throws -> Any? {
        guard let target else { return nil }
        func unsupported() -> NimbusError {
            NimbusError(.migrationFailed, "\(expression): \(type(of: target)) has no method \(selector) that Nimbus can run; compute the value in a custom migration policy")
        }
        func string(_ index: Int) throws -> String {
            guard index < arguments.count, let value = arguments[index] as? String else { throw unsupported() }
            return value
        }
        func integer(_ index: Int) throws -> Int {
            guard index < arguments.count, let value = arguments[index].flatMap({ PropertyValue.int64(from: $0) }) else { throw unsupported() }
            return Int(value)
        }
        if let text = target as? String {
            switch selector {
            case "uppercaseString": return text.uppercased()
            case "lowercaseString": return text.lowercased()
            case "capitalizedString": return text.capitalized
            case "length": return Int64(text.utf16.count)
            case "stringByTrimmingWhitespace", "trimmed": return text.trimmingCharacters(in: .whitespacesAndNewlines)
            case "stringByAppendingString:": return text + (try string(0))
            case "stringByReplacingOccurrencesOfString:withString:": return text.replacingOccurrences(of: try string(0), with: try string(1))
            case "substringToIndex:": return String(text.prefix(max(0, try integer(0))))
            case "substringFromIndex:": return String(text.dropFirst(max(0, try integer(0))))
            case "componentsSeparatedByString:": return text.components(separatedBy: try string(0))
            case "hasPrefix:": return text.hasPrefix(try string(0))
            case "hasSuffix:": return text.hasSuffix(try string(0))
            case "integerValue", "intValue", "longLongValue": return Int64(text.trimmingCharacters(in: .whitespaces)) ?? Double(text).map { Int64($0) } ?? 0
            case "doubleValue", "floatValue": return Double(text.trimmingCharacters(in: .whitespaces)) ?? 0
            case "boolValue": return ["Y", "y", "T", "t", "1", "2", "3", "4", "5", "6", "7", "8", "9"].contains(text.trimmingCharacters(in: .whitespaces).prefix(1))
            case "description", "stringValue", "copy": return text
            case "lastPathComponent": return (text as NSString).lastPathComponent
            default: throw unsupported()
            }
        }
        if let number = target as? Bool {
            switch selector {
            case "boolValue": return number
            case "integerValue", "intValue", "longLongValue": return Int64(number ? 1 : 0)
            case "doubleValue", "floatValue": return number ? 1.0 : 0.0
            case "stringValue", "description": return number ? "1" : "0"
            default: throw unsupported()
            }
        }
        if let number = PropertyValue.int64(from: target), !(target is Double && (target as! Double).rounded() != (target as! Double)) {
            switch selector {
            case "integerValue", "intValue", "longLongValue": return number
            case "doubleValue", "floatValue": return Double(number)
            case "boolValue": return number != 0
            case "stringValue", "description": return String(number)
            default: break
            }
        }
        if let number = target as? Double {
            switch selector {
            case "integerValue", "intValue", "longLongValue": return Int64(number.rounded(.towardZero))
            case "doubleValue", "floatValue": return number
            case "boolValue": return number != 0
            case "stringValue", "description": return String(number)
            default: throw unsupported()
            }
        }
        if let date = target as? Date {
            switch selector {
            case "timeIntervalSinceReferenceDate": return date.timeIntervalSinceReferenceDate
            case "timeIntervalSince1970": return date.timeIntervalSince1970
            case "description": return ISO8601DateFormatter().string(from: date)
            default: throw unsupported()
            }
        }
        if let url = target as? URL {
            switch selector {
            case "absoluteString", "description": return url.absoluteString
            case "lastPathComponent": return url.lastPathComponent
            case "path": return url.path
            case "host": return url.host
            default: throw unsupported()
            }
        }
        if let uuid = target as? UUID, selector == "UUIDString" || selector == "description" { return uuid.uuidString }
        if let set = target as? Set<ManagedObject>, selector == "count" || selector == "@count" { return Int64(set.count) }
        if let array = target as? [ManagedObject] {
            switch selector {
            case "count", "@count": return Int64(array.count)
            case "firstObject": return array.first
            case "lastObject": return array.last
            default: throw unsupported()
            }
        }
        if let array = target as? [Any?], selector == "count" || selector == "@count" { return Int64(array.count) }
        throw unsupported()
    }
}
