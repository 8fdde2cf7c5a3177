/// Checks that a file people write by hand (a devices file, a lint policy) is JSON as RFC 8259 has it, before it is
/// decoded, and says where it is not. Foundation's parser says only "not valid JSON", with no place, and takes what
/// the RFC does not: a comma before a closing bracket, and a key twice in one object (the first kept, where
/// Python and JavaScript keep the last), so an edit meant to change a setting could silently do nothing.
public enum StrictJSON {
    public struct SyntaxError: Error, Equatable, CustomStringConvertible, Sendable {
        public var line: Int
        public var column: Int
        public var reason: String
        public var description: String { "line \(line), column \(column): \(reason)" }
    }

    /// Throws the first place where `bytes` (UTF-8) is not one JSON value with unique keys per object.
    public static func check(_ bytes: [UInt8]) throws(SyntaxError) {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            throw SyntaxError(line: 1, column: 1, reason: "a byte-order mark, which JSON text does not start with (RFC 8259 "
                              + "8.1): save the file as UTF-8 without one")
        }
        var reader = Reader(bytes: bytes)
        try reader.value(depth: 0)
        reader.skipSpace()
        if reader.index < bytes.count { throw reader.error("text after the end of the JSON value") }
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0
        /// Deeper nesting than this is refused rather than risk the stack.
        static let deepest = 512

        func error(_ reason: String) -> SyntaxError {
            var line = 1, lineStart = 0
            for (offset, byte) in bytes[..<min(index, bytes.count)].enumerated() where byte == UInt8(ascii: "\n") {
                line += 1
                lineStart = offset + 1
            }
            // Columns count characters, not bytes: continuation bytes of UTF-8 are not counted.
            let column = bytes[lineStart..<min(index, bytes.count)].filter { $0 & 0xC0 != 0x80 }.count + 1
            return SyntaxError(line: line, column: column, reason: reason)
        }

        var next: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let byte = next, [0x20, 0x09, 0x0A, 0x0D].contains(byte) { index += 1 }
        }

        mutating func expect(_ character: Character) throws(SyntaxError) {
            skipSpace()
            guard next == character.asciiValue else { throw error("expected '\(character)'") }
            index += 1
        }

        mutating func value(depth: Int) throws(SyntaxError) {
            guard depth < Self.deepest else { throw error("nested more than \(Self.deepest) deep") }
            skipSpace()
            switch next {
            case UInt8(ascii: "{"): try object(depth: depth)
            case UInt8(ascii: "["): try array(depth: depth)
            case UInt8(ascii: "\""): _ = try string()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            case let byte? where byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte): try number()
            case nil: throw error("the file ends where a value belongs")
            default: throw error("a value belongs here")
            }
        }

        mutating func object(depth: Int) throws(SyntaxError) {
            var keys = Set<[UInt8]>()
            try members(closing: "}") { reader throws(SyntaxError) in
                guard reader.next == UInt8(ascii: "\"") else { throw reader.error("expected a key in double quotes") }
                let start = reader.index
                let key = try reader.string()
                guard keys.insert(key).inserted else {
                    reader.index = start
                    throw reader.error("\"\(String(decoding: key, as: UTF8.self))\" appears twice in this object")
                }
                try reader.expect(":")
                try reader.value(depth: depth + 1)
            }
        }

        mutating func array(depth: Int) throws(SyntaxError) {
            try members(closing: "]") { reader throws(SyntaxError) in try reader.value(depth: depth + 1) }
        }

        /// An object's or array's members from its opening bracket to `closing`, each read by `member` and
        /// separated by commas; a comma before `closing` is a fault.
        mutating func members(closing: Character, _ member: (inout Reader) throws(SyntaxError) -> Void) throws(SyntaxError) {
            index += 1
            skipSpace()
            if next == closing.asciiValue {
                index += 1
                return
            }
            while true {
                skipSpace()
                if next == closing.asciiValue { throw error("a comma before '\(closing)'") }
                try member(&self)
                skipSpace()
                guard next == UInt8(ascii: ",") else { return try expect(closing) }
                index += 1
            }
        }

        /// A string's raw bytes between its quotes (escapes left as written: enough to compare keys).
        mutating func string() throws(SyntaxError) -> [UInt8] {
            index += 1
            let start = index
            while let byte = next {
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return Array(bytes[start..<index - 1])
                case UInt8(ascii: "\\"):
                    index += 1
                    guard let escaped = next, Array("\"\\/bfnrtu".utf8).contains(escaped) else { throw error("an unknown escape") }
                    index += 1
                    if escaped == UInt8(ascii: "u") {
                        guard index + 4 <= bytes.count, bytes[index..<index + 4].allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit })
                        else { throw error("\\u needs four hexadecimal digits") }
                        index += 4
                    }
                case ..<0x20: throw error("a control character inside a string (write it escaped)")
                default: index += 1
                }
            }
            throw error("a string not closed before the end of the file")
        }

        mutating func literal(_ word: String) throws(SyntaxError) {
            guard bytes[index...].starts(with: word.utf8) else { throw error("a value belongs here") }
            index += word.utf8.count
        }

        mutating func number() throws(SyntaxError) {
            func digits() -> Int {
                let start = index
                while let byte = next, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
                return index - start
            }
            // A fault is placed at the number's start.
            let start = index
            func fault(_ reason: String) -> SyntaxError {
                index = start
                return error(reason)
            }
            if next == UInt8(ascii: "-") { index += 1 }
            let first = next
            let whole = digits()
            guard whole > 0 else { throw fault("a number needs digits") }
            if first == UInt8(ascii: "0"), whole > 1 { throw fault("a number may not start with 0") }
            if next == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { throw fault("a number needs digits after its point") }
            }
            if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
                index += 1
                if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { throw fault("a number needs digits in its exponent") }
            }
            // RFC 8259 6 lets a reader limit range; ours is a double's, which decoders refuse to pass silently.
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            guard let value = Double(text), value.isFinite else {
                throw fault("a number beyond the range of a double (about 1.8e308)")
            }
            let mantissa = text.prefix { $0 != "e" && $0 != "E" }
            if value == 0, mantissa.contains(where: { $0.isNumber && $0 != "0" }) {
                throw fault("a number too small for a double (below about 4.9e-324): write 0")
            }
        }
    }
}
