import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// One element of an Xcode model's `contents` file, with the line it starts on.
///
/// The file is small (a few hundred elements), so it is read whole into this tree and
/// then mapped; the mapping code reads like the format instead of like parser callbacks.
struct XcodeXMLElement: Sendable {
    /// The element name, e.g. `entity`.
    var name: String
    /// The element's XML attributes.
    var attributes: [String: String]
    /// Child elements, in document order.
    var children: [XcodeXMLElement]
    /// The 1-based line the element starts on.
    var line: Int
    /// The element's own text (a mapping model's `<attribute>` values).
    var text = ""

    subscript(key: String) -> String? { attributes[key] }

    /// The children with a given element name, in document order.
    func children(named name: String) -> [XcodeXMLElement] {
        children.filter { $0.name == name }
    }

    /// Parses XML data into its root element.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/invalidModel`` naming `file` and the line
    ///   of the first XML error (libxml2 may recover from some errors; they still fail).
    static func parse(_ data: Data, file: String) throws -> XcodeXMLElement {
        let parser = XMLParser(data: data)
        let builder = TreeBuilder()
        parser.delegate = builder
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        let ok = parser.parse()
        if let failure = builder.failure ?? (ok ? nil : XMLFailure(code: (parser.parserError as NSError?)?.code ?? 0,
                                                                    line: parser.lineNumber, column: parser.columnNumber)) {
            throw NimbusError(.invalidModel, "\(file):\(max(failure.line, 1)): the model is not well-formed XML: \(failure)",
                              underlying: failure)
        }
        guard let root = builder.root else {
            throw NimbusError(.invalidModel, "\(file):1: the model is not well-formed XML: the file has no root element")
        }
        return root
    }

    /// The first error the XML parser (libxml2) reported.
    struct XMLFailure: Error, Sendable, CustomStringConvertible {
        var code: Int
        var line: Int
        var column: Int

        /// What the libxml2 error codes seen in hand-edited models mean.
        private static let reasons: [Int: String] = [
            4: "the document is empty",
            5: "the document ends too early or has content after its root element",
            42: "an attribute is given twice",
            68: "a name is missing (an unescaped & or <?)",
            73: "a tag is not closed with >",
            76: "an end tag does not match its start tag",
        ]

        var description: String {
            let reason = Self.reasons[code] ?? "libxml2 error \(code)"
            return "\(reason) (line \(line), column \(column))"
        }
    }
}

/// Builds the element tree from the parser's callbacks.
private final class TreeBuilder: NSObject, XMLParserDelegate {
    var root: XcodeXMLElement?
    var failure: XcodeXMLElement.XMLFailure?
    private var stack: [XcodeXMLElement] = []

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        guard failure == nil else { return }
        failure = .init(code: (parseError as NSError).code, line: parser.lineNumber, column: parser.columnNumber)
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        stack.append(XcodeXMLElement(name: elementName, attributes: attributes, children: [],
                                     line: max(parser.lineNumber, 1)))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += string
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
                qualifiedName: String?) {
        guard let element = stack.popLast() else { return }
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }
}
