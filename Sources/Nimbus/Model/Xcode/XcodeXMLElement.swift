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

    subscript(key: String) -> String? { attributes[key] }

    /// The children with a given element name, in document order.
    func children(named name: String) -> [XcodeXMLElement] {
        children.filter { $0.name == name }
    }

    /// Parses XML data into its root element.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/invalidModel`` naming `file` and the line
    ///   of the first XML error.
    static func parse(_ data: Data, file: String) throws -> XcodeXMLElement {
        let parser = XMLParser(data: data)
        let builder = TreeBuilder()
        parser.delegate = builder
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        let ok = parser.parse()
        if !ok || builder.root == nil {
            let line = max(parser.lineNumber, 1)
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "the file has no root element"
            throw NimbusError(.invalidModel, "\(file):\(line): the model is not well-formed XML: \(reason)",
                              underlying: parser.parserError.map { XMLFailure(description: "\($0)") })
        }
        return builder.root!
    }

    /// A parser error, kept as text so the error stays `Sendable`.
    struct XMLFailure: Error, Sendable, CustomStringConvertible {
        var description: String
    }
}

/// Builds the element tree from the parser's callbacks.
private final class TreeBuilder: NSObject, XMLParserDelegate {
    var root: XcodeXMLElement?
    private var stack: [XcodeXMLElement] = []

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        stack.append(XcodeXMLElement(name: elementName, attributes: attributes, children: [],
                                     line: max(parser.lineNumber, 1)))
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
