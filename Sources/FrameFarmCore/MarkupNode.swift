import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// An XML document read into a tree of elements (what a DASH manifest is read as), by Foundation's parser
/// (libxml2). Element names lose their namespace prefix (`cenc:pssh` is `pssh`); external entities are never
/// resolved.
public final class MarkupNode {
    public let name: String
    public let attributes: [String: String]
    public private(set) var children: [MarkupNode] = []
    /// The element's own text, without its children's.
    public private(set) var text = ""

    init(name: String, attributes: [String: String]) {
        self.name = name.split(separator: ":").last.map(String.init) ?? name
        self.attributes = attributes
    }

    /// The first child element called `name`.
    public func child(_ name: String) -> MarkupNode? { children.first { $0.name == name } }

    /// Every child element called `name`, in document order.
    public func children(_ name: String) -> [MarkupNode] { children.filter { $0.name == name } }

    /// The root element of `data`; throws the parser's reason, with its line, when `data` is not well-formed XML.
    public static func parse(_ data: Data) throws(MarkupError) -> MarkupNode {
        let builder = TreeBuilder()
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        // Foundation's parser can answer true for a document cut short, with the error set.
        guard parser.parse(), parser.parserError == nil, let root = builder.root else {
            let code = (parser.parserError as NSError?)?.code
            let reason = switch code {
            case XMLParser.ErrorCode.emptyDocumentError.rawValue?, nil: "no root element"
            case XMLParser.ErrorCode.prematureDocumentEndError.rawValue?: "it ends before its elements do"
            default: "parser error \(code!)"
            }
            throw MarkupError(description: "not well-formed XML (line \(parser.lineNumber): \(reason))")
        }
        return root
    }

    private final class TreeBuilder: NSObject, XMLParserDelegate {
        var root: MarkupNode?
        private var open: [MarkupNode] = []

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            let node = MarkupNode(name: elementName, attributes: attributes)
            if let parent = open.last { parent.children.append(node) } else { root = node }
            open.append(node)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            _ = open.popLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            open.last?.text += string
        }
    }
}

/// Why a document could not be read as XML.
public struct MarkupError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
}
