import Foundation

/// One token of a predicate format string, with the 1-based column where it starts.
struct PredicateToken: Equatable {
    enum Kind: Equatable {
        /// A name. `escaped` is true for `#name`, which is never a reserved word.
        case identifier(String, escaped: Bool)
        /// `@count`, `@sum`, … (the name without `@`).
        case collectionOperator(String)
        /// `$name` (the name without `$`).
        case variable(String)
        /// `lowercase:`, `add:to:` — a function name in `NSExpression`'s selector form.
        case selector(String)
        case integer(Int64)
        /// An integer literal too large for `Int64` (only valid after a unary minus: `-9223372036854775808`).
        case bigInteger(UInt64)
        case double(Double)
        case string(String)
        /// `%@`, `%K`, `%d`, … (the letters after `%`).
        case format(String)
        /// Punctuation and operators: `(`, `)`, `{`, `}`, `[`, `]`, `,`, `.`, `==`, `&&`, `**`, ….
        case symbol(String)
        case end
    }

    var kind: Kind
    var column: Int
}

/// Splits a predicate format string into tokens.
///
/// Reserved words are not recognized here: the parser compares identifiers with them
/// case-insensitively, unless the identifier was escaped with `#`.
struct PredicateLexer {
    private let scalars: [Unicode.Scalar]
    private var index = 0

    init(_ text: String) { scalars = Array(text.unicodeScalars) }

    /// All tokens, ending with `.end`.
    static func tokens(_ text: String) throws -> [PredicateToken] {
        var lexer = PredicateLexer(text)
        var tokens: [PredicateToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }
    private func peek(_ offset: Int = 1) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    static func error(_ message: String, column: Int) -> NimbusError {
        var error = NimbusError(.invalidPredicate, "\(message) at column \(column)")
        error.column = column
        return error
    }

    private static func isIdentifierStart(_ c: Unicode.Scalar) -> Bool {
        c == "_" || c.properties.isAlphabetic
    }

    private static func isIdentifierPart(_ c: Unicode.Scalar) -> Bool {
        isIdentifierStart(c) || ("0"..."9").contains(c)
    }

    private mutating func identifier() -> String {
        var name = ""
        while let c = current, Self.isIdentifierPart(c) { name.unicodeScalars.append(c); index += 1 }
        return name
    }

    mutating func next() throws -> PredicateToken {
        while let c = current, c.properties.isWhitespace { index += 1 }
        let column = index + 1
        guard let c = current else { return PredicateToken(kind: .end, column: column) }
        func token(_ kind: PredicateToken.Kind) -> PredicateToken { PredicateToken(kind: kind, column: column) }

        if Self.isIdentifierStart(c) {
            var name = identifier()
            // A selector: `lowercase:` or `add:to:`.
            if current == ":" {
                while current == ":" {
                    name += ":"
                    index += 1
                    if let c = current, Self.isIdentifierStart(c), lookaheadIsSelectorPart() { name += identifier() } else { break }
                }
                return token(.selector(name))
            }
            return token(.identifier(name, escaped: false))
        }
        if ("0"..."9").contains(c) || (c == "." && peek().map { ("0"..."9").contains($0) } == true) {
            return token(try number(column: column))
        }
        switch c {
        case "#":
            index += 1
            guard let first = current, Self.isIdentifierStart(first) else {
                throw Self.error("expected a key name after #", column: column)
            }
            return token(.identifier(identifier(), escaped: true))
        case "@":
            index += 1
            guard let first = current, Self.isIdentifierStart(first) else {
                throw Self.error("expected a collection operator such as @count after @", column: column)
            }
            return token(.collectionOperator(identifier()))
        case "$":
            index += 1
            guard let first = current, Self.isIdentifierStart(first) else {
                throw Self.error("expected a variable name after $", column: column)
            }
            return token(.variable(identifier()))
        case "'", "\"":
            return token(.string(try string(quote: c, column: column)))
        case "%":
            index += 1
            var spec = ""
            while let l = current, l == "l" || l == "h" || l == "q" { spec.unicodeScalars.append(l); index += 1 }
            guard let letter = current, "@KdiufgeFGxXsc".unicodeScalars.contains(letter) else {
                throw Self.error("unknown format specifier", column: column)
            }
            index += 1
            spec.unicodeScalars.append(letter)
            return token(.format(spec))
        default:
            break
        }
        let two = String(String.UnicodeScalarView([c] + (peek().map { [$0] } ?? [])))
        for symbol in ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||", "**"] where two == symbol {
            index += 2
            return token(.symbol(symbol))
        }
        if "(){}[],.=<>!+-*/&|^~".unicodeScalars.contains(c) {
            index += 1
            return token(.symbol(String(c)))
        }
        throw Self.error("unexpected character '\(c)'", column: column)
    }

    /// After `name:`, whether the following identifier continues the selector (`add:to:`)
    /// rather than starting something else: it must itself end with `:`.
    private func lookaheadIsSelectorPart() -> Bool {
        var i = index
        while i < scalars.count, Self.isIdentifierPart(scalars[i]) { i += 1 }
        return i < scalars.count && scalars[i] == ":"
    }

    private mutating func number(column: Int) throws -> PredicateToken.Kind {
        if current == "0", let radix = peek(), "xXoObB".unicodeScalars.contains(radix) {
            index += 2
            let base = "xX".unicodeScalars.contains(radix) ? 16 : ("oO".unicodeScalars.contains(radix) ? 8 : 2)
            var digits = ""
            while let c = current, c.properties.isASCIIHexDigit { digits.unicodeScalars.append(c); index += 1 }
            guard let value = UInt64(digits, radix: base) else { throw Self.error("malformed number", column: column) }
            return value <= UInt64(Int64.max) ? .integer(Int64(value)) : .bigInteger(value)
        }
        var text = ""
        var isDouble = false
        while let c = current, ("0"..."9").contains(c) { text.unicodeScalars.append(c); index += 1 }
        if current == ".", peek().map({ ("0"..."9").contains($0) }) == true || !text.isEmpty && !(peek().map(Self.isIdentifierStart) ?? false) && peek() != "@" {
            isDouble = true
            text += "."
            index += 1
            while let c = current, ("0"..."9").contains(c) { text.unicodeScalars.append(c); index += 1 }
        }
        if let e = current, e == "e" || e == "E" {
            let sign = peek()
            let digitAt = (sign == "+" || sign == "-") ? 2 : 1
            if let d = peek(digitAt), ("0"..."9").contains(d) {
                isDouble = true
                text += "e"
                index += 1
                if digitAt == 2 { text.unicodeScalars.append(sign!); index += 1 }
                while let c = current, ("0"..."9").contains(c) { text.unicodeScalars.append(c); index += 1 }
            }
        }
        if let c = current, Self.isIdentifierStart(c) { throw Self.error("malformed number", column: column) }
        if !isDouble {
            if let value = Int64(text) { return .integer(value) }
            if let value = UInt64(text) { return .bigInteger(value) }
        }
        guard let value = Double(text.hasPrefix(".") ? "0" + text : text), value.isFinite else {
            throw Self.error("malformed number", column: column)
        }
        return .double(value)
    }

    private mutating func string(quote: Unicode.Scalar, column: Int) throws -> String {
        index += 1
        var result = String.UnicodeScalarView()
        while let c = current {
            index += 1
            if c == quote { return String(result) }
            guard c == "\\" else { result.append(c); continue }
            guard let escaped = current else { break }
            index += 1
            switch escaped {
            case "n": result.append("\n")
            case "t": result.append("\t")
            case "r": result.append("\r")
            case "0": result.append("\0")
            case "u":
                var hex = ""
                while hex.count < 4, let h = current, h.properties.isASCIIHexDigit { hex.unicodeScalars.append(h); index += 1 }
                guard hex.count == 4, let code = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(code) else {
                    throw Self.error("malformed \\u escape in string", column: index)
                }
                result.append(scalar)
            default: result.append(escaped)
            }
        }
        throw Self.error("unterminated string", column: column)
    }
}
