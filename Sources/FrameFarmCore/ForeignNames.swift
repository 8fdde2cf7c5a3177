import Foundation

/// File names that are not UTF-8: a Latin-1 library's, an old Samba share's. A Swift string cannot hold their
/// bytes (Foundation and `CommandLine.arguments` put U+FFFD in their place, which names no file), so FrameFarm writes
/// each byte that is not UTF-8 as `\xE9`: that is the name every message, record and page shows. Such a name is
/// opened through a link to it (`openable`, in FrameFarmMedia).
public enum ForeignNames {
    /// `bytes` as a string: itself when UTF-8, else with each byte that is not written as `\xHH`.
    public static func decode(_ bytes: some Collection<UInt8>) -> String {
        let bytes = Array(bytes)
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        var text = "", start = 0
        while start < bytes.count {
            let length = validSequenceLength(bytes, at: start)
            if length > 0 {
                text += String(decoding: bytes[start..<(start + length)], as: UTF8.self)
                start += length
            } else {
                text += "\\x" + String(bytes[start], radix: 16, uppercase: true)
                start += 1
            }
        }
        return text
    }

    /// The bytes of a name `decode` made, when it has escaped bytes that are not UTF-8; nil for any other string
    /// (a name that is UTF-8 as it stands, `\x` written in it or not).
    public static func foreignBytes(_ name: String) -> [UInt8]? {
        guard name.contains("\\x") else { return nil }
        let bytes = unescaped(name) { [$0] }
        return String(validating: bytes, as: UTF8.self) == nil ? bytes : nil
    }

    /// `name` with each `\xHH` from 80 up replaced by `replacement(HH)`.
    private static func unescaped(_ name: String, replacement: (UInt8) -> [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [], utf8 = Array(name.utf8), index = 0
        bytes.reserveCapacity(utf8.count)
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "\\"), index + 3 < utf8.count, utf8[index + 1] == UInt8(ascii: "x"),
               let byte = UInt8(String(decoding: utf8[(index + 2)..<(index + 4)], as: UTF8.self), radix: 16), byte >= 0x80 {
                bytes += replacement(byte)
                index += 4
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return bytes
    }

    /// A name `decode` made with its escaped bytes read as Latin-1 (`caf\xE9` as `café`), the likeliest reading of
    /// such a library, for output folders: a backslash in a folder's name breaks its links in a browser.
    public static func readable(_ name: String) -> String {
        guard foreignBytes(name) != nil else { return name }
        return String(decoding: unescaped(name) { Array(String(Character(Unicode.Scalar($0))).utf8) }, as: UTF8.self)
    }

    /// A path component percent-escaped for a link: a name `decode` made has its own bytes escaped (`%E9`), so that
    /// the link reaches the file; nil for any other component.
    public static func percentEscaped(_ component: String) -> String? {
        guard let bytes = foreignBytes(component) else { return nil }
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        return bytes.map { unreserved.contains($0) ? String(UnicodeScalar($0)) : String(format: "%%%02X", $0) }.joined()
    }

    /// The length of the well-formed UTF-8 sequence at `start` (Unicode's table 3-7), or 0 when there is none.
    private static func validSequenceLength(_ bytes: [UInt8], at start: Int) -> Int {
        let lead = bytes[start]
        let (length, secondRange): (Int, ClosedRange<UInt8>) = switch lead {
        case 0x00...0x7F: (1, 0x80...0xBF)
        case 0xC2...0xDF: (2, 0x80...0xBF)
        case 0xE0: (3, 0xA0...0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: (3, 0x80...0xBF)
        case 0xED: (3, 0x80...0x9F)
        case 0xF0: (4, 0x90...0xBF)
        case 0xF1...0xF3: (4, 0x80...0xBF)
        case 0xF4: (4, 0x80...0x8F)
        default: (0, 0x80...0xBF)
        }
        guard length > 1 else { return length }
        guard start + length <= bytes.count, secondRange.contains(bytes[start + 1]) else { return 0 }
        return bytes[(start + 2)..<(start + length)].allSatisfy { (0x80...0xBF).contains($0) } ? length : 0
    }
}
