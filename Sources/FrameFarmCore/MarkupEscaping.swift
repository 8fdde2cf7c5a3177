/// The one escaping of text put into HTML or XML, in element content or in a quoted attribute: the five
/// characters that can end or start markup become entities; everything else (unicode included) is left as it is.
public enum MarkupEscaping {
    public static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}
