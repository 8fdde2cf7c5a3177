/// The one escaping of text put into HTML or XML, in element content or in a quoted attribute: the five
/// characters that can end or start markup become entities, and so do tab, newline and carriage return (an
/// attribute's value keeps them only so). The other control characters, which XML 1.0 allows nowhere (a file name
/// holding one made a JUnit report no parser reads), are written as the terminal writes them (`\x01`);
/// everything else (unicode included) is left as it is.
public enum MarkupEscaping {
    public static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case "\t", "\n", "\r": result += "&#\(scalar.value);"
            case _ where scalar.value < 0x20: result += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16, uppercase: true)
            case "\u{FFFE}", "\u{FFFF}": result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
