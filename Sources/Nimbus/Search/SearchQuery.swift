/// A search typed by a user, checked and turned into an SQLite FTS5 `MATCH` expression
/// in which every word is a quoted string, so no input reaches FTS5's own syntax.
///
/// The language: words match anywhere (all must match); `"two words"` is a phrase;
/// `cafe*` (or `"café cr"*`) matches words starting so; `OR` between words or phrases
/// matches either; `-word` excludes. Matching ignores case and diacritics (the index uses
/// the `unicode61` tokenizer with `remove_diacritics 2`). For example:
///
/// ```swift
/// let query = try SearchQuery("café* -decaf \"crème brûlée\"")
/// query.matchExpression   // ("café"* AND "crème brûlée") NOT "decaf"
/// ```
public struct SearchQuery: Sendable, Hashable {
    /// The text as typed.
    public let text: String
    /// The FTS5 expression the index is queried with.
    public let matchExpression: String

    private struct Term {
        var text: String
        var isPrefix: Bool
        var column: Int
        var fts: String { "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" + (isPrefix ? "*" : "") }
    }

    /// Parses a query.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/invalidSearchQuery`` for an empty query, an
    ///   unclosed quote, a `*` anywhere but at the end of a word, `OR` without a word on each
    ///   side, a word with no letters or digits, or only excluded words; ``NimbusError/column``
    ///   is where the problem starts (1-based).
    public init(_ text: String) throws {
        self.text = text
        let characters = Array(text)
        var index = 0
        var groups: [[Term]] = [[]]     // OR-separated groups of AND-ed terms
        var excluded: [Term] = []
        var pendingOr: Int?

        func fail(_ message: String, at column: Int) -> NimbusError {
            var error = NimbusError(.invalidSearchQuery, "the search \"\(text)\" \(message) (at column \(column))")
            error.column = column
            return error
        }

        while index < characters.count {
            if characters[index].isWhitespace { index += 1; continue }
            let start = index
            var negated = false
            if characters[index] == "-" { negated = true; index += 1 }
            var word = ""
            var isPrefix = false
            if index < characters.count, characters[index] == "\"" {
                index += 1
                while index < characters.count, characters[index] != "\"" { word.append(characters[index]); index += 1 }
                guard index < characters.count else { throw fail("has a quote that is never closed", at: start + 1) }
                index += 1
                if index < characters.count, characters[index] == "*" { isPrefix = true; index += 1 }
                if index < characters.count, !characters[index].isWhitespace {
                    throw fail("continues right after a closing quote; put a space after it", at: index + 1)
                }
            } else {
                while index < characters.count, !characters[index].isWhitespace {
                    if characters[index] == "*" {
                        guard index + 1 == characters.count || characters[index + 1].isWhitespace, !word.isEmpty else {
                            throw fail("has a * that does not end a word; write cafe* to match words starting with cafe", at: index + 1)
                        }
                        isPrefix = true
                    } else if characters[index] == "\"" {
                        throw fail("has a quote inside a word; quote whole phrases, as in \"crème brûlée\"", at: index + 1)
                    } else {
                        word.append(characters[index])
                    }
                    index += 1
                }
            }
            if !negated, !isPrefix, word == "OR", characters[start] != "\"" {
                guard !(groups.last?.isEmpty ?? true), pendingOr == nil else {
                    throw fail("has OR without a word before it", at: start + 1)
                }
                pendingOr = start + 1
                groups.append([])
                continue
            }
            guard word.contains(where: { $0.isLetter || $0.isNumber }) else {
                throw fail("has \(word.isEmpty ? "an empty word" : "\"\(word)\", which has no letters or digits")", at: start + 1)
            }
            let term = Term(text: word, isPrefix: isPrefix, column: start + 1)
            if negated {
                guard pendingOr == nil else { throw fail("has OR before an excluded word; OR joins words to find", at: start + 1) }
                excluded.append(term)
            } else {
                groups[groups.count - 1].append(term)
                pendingOr = nil
            }
        }
        if let pendingOr { throw fail("ends with OR; put a word after it", at: pendingOr) }
        let found = groups.filter { !$0.isEmpty }
        guard !found.isEmpty else {
            throw fail(excluded.isEmpty ? "has no words to search for" : "only excludes words; add a word to find", at: 1)
        }
        let positive = found.map { group in
            group.count == 1 ? group[0].fts : "(" + group.map(\.fts).joined(separator: " AND ") + ")"
        }
        var expression = positive.count == 1 ? positive[0] : "(" + positive.joined(separator: " OR ") + ")"
        for term in excluded { expression += " NOT " + term.fts }
        self.matchExpression = expression
    }
}
