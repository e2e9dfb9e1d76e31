import Foundation

/// Prints predicates and expressions in the format syntax, so that parsing the text gives
/// back an equal value.
enum PredicateFormatter {
    static func format(_ predicate: QueryPredicate) -> String {
        switch predicate {
        case .truePredicate: return "TRUEPREDICATE"
        case .falsePredicate: return "FALSEPREDICATE"
        case let .and(parts): return parts.isEmpty ? "TRUEPREDICATE" : parts.map(operand).joined(separator: " AND ")
        case let .or(parts): return parts.isEmpty ? "FALSEPREDICATE" : parts.map(operand).joined(separator: " OR ")
        case let .not(inner): return "NOT " + operand(inner)
        case let .comparison(c):
            var text = ""
            switch c.modifier {
            case .direct: break
            case .any: text = "ANY "
            case .all: text = "ALL "
            }
            text += format(c.left) + " " + c.op.rawValue
            var letters = ""
            if c.options.contains(.caseInsensitive) { letters += "c" }
            if c.options.contains(.diacriticInsensitive) { letters += "d" }
            if c.options.contains(.normalized) { letters += "n" }
            if !letters.isEmpty { text += "[\(letters)]" }
            return text + " " + format(c.right)
        }
    }

    /// A predicate as an operand of AND, OR or NOT: compound ones in parentheses.
    private static func operand(_ predicate: QueryPredicate) -> String {
        switch predicate {
        case .truePredicate, .falsePredicate: format(predicate)
        default: "(" + format(predicate) + ")"
        }
    }

    static let infix: [String: String] = ["add:to:": "+", "from:subtract:": "-", "multiply:by:": "*", "divide:by:": "/", "raise:toPower:": "**",
                                          "bitwiseAnd:with:": "&", "bitwiseOr:with:": "|", "bitwiseXor:with:": "^"]

    static func format(_ expression: QueryExpression) -> String {
        switch expression {
        case let .constant(value): return format(value)
        case let .keyPath(components): return components.map(key).joined(separator: ".")
        case .evaluatedObject: return "SELF"
        case let .variable(name): return "$" + name
        case let .variableKeyPath(name, components): return (["$" + name] + components.map(key)).joined(separator: ".")
        case let .function(name, arguments):
            if let symbol = infix[name], arguments.count == 2 {
                return "(" + format(arguments[0]) + " " + symbol + " " + format(arguments[1]) + ")"
            }
            if name == "now" { return "now()" }
            if name == "objectFrom:withIndex:", arguments.count == 2 {
                let index: String = switch arguments[1] {
                case .constant(.integer(0)): "FIRST"
                case .constant(.integer(-1)): "LAST"
                default: format(arguments[1])
                }
                return format(arguments[0]) + "[" + index + "]"
            }
            if arguments.count == 1, let suffix = collectionOperator[name], case .subquery = arguments[0] {
                return format(arguments[0]) + "." + suffix
            }
            return name + "(" + arguments.map(format).joined(separator: ", ") + ")"
        case let .aggregate(items): return "{" + items.map(format).joined(separator: ", ") + "}"
        case let .subquery(collection, variable, predicate):
            return "SUBQUERY(" + format(collection) + ", $" + variable + ", " + format(predicate) + ")"
        case let .conditional(condition, a, b):
            return "TERNARY(" + format(condition) + ", " + format(a) + ", " + format(b) + ")"
        }
    }

    static let collectionOperator = ["count:": "@count", "sum:": "@sum", "average:": "@avg", "min:": "@min", "max:": "@max"]

    /// A key path component, `#`-escaped when it is a reserved word.
    static func key(_ component: String) -> String {
        PredicateParser.reservedWords.contains(component.uppercased()) ? "#" + component : component
    }

    static func format(_ value: PropertyValue) -> String {
        switch value {
        case .null: return "nil"
        case let .integer(v): return String(v)
        case let .double(v):
            if v.isNaN || v.isInfinite { return "CAST(\(quote(String(v))), \"NSNumber\")" }
            let text = String(v)
            return text.contains(".") || text.contains("e") ? text : text + ".0"
        case let .decimal(v): return "CAST(\(quote(v.description)), \"NSDecimalNumber\")"
        case let .string(v): return quote(v)
        case let .bool(v): return v ? "YES" : "NO"
        case let .date(v): return "CAST(\(format(.double(v.timeIntervalSinceReferenceDate))), \"NSDate\")"
        case let .data(v): return "CAST(\(quote(v.base64EncodedString())), \"NSData\")"
        case let .uuid(v): return "CAST(\(quote(v.uuidString)), \"NSUUID\")"
        case let .url(v): return "CAST(\(quote(v.absoluteString)), \"NSURL\")"
        case let .object(id): return "CAST(\(quote(id.uriRepresentation().absoluteString)), \"NSManagedObjectID\")"
        case let .objects(ids): return "{" + ids.map { format(.object($0)) }.joined(separator: ", ") + "}"
        }
    }

    /// A double-quoted string literal with escapes.
    static func quote(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case "\0": result += "\\0"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += "\\u" + String(format: "%04X", scalar.value)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
