import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import FrameFarmCore
import Testing

/// File names come from users: every character that can start or end markup must reach a page or a manifest as
/// text. libxml2 (through XMLDocument, an independent parser) reads each back as the name it was.
@Suite struct MarkupEscapingTests {
    static let hostileNames = ["a<b>c", "Tom & Jerry", "say \"cheese\"", "it's", "</section><script>x()</script>",
                               "&amp; already", "Ünïcödé 日本語 🎬", "<!-- comment -->", "]]>"]

    @Test(arguments: hostileNames)
    func anXMLAttributeReadsBackAsTheName(name: String) throws {
        let track = try ThumbnailTrack(duration: 20, spacing: .interval(10), tileSize: PixelSize(width: 160, height: 90),
                                       columns: 2, rows: 1)
        let set = DASHImageWriter.adaptationSet(for: track, bandwidth: 1000, id: name)
        let document = try XMLDocument(data: Data(set.utf8))
        let representation = try #require(document.rootElement()?.elements(forName: "Representation").first)
        #expect(representation.attribute(forName: "id")?.stringValue == name)
    }

    @Test(arguments: hostileNames)
    func aContactSheetShowsTheNameAsText(name: String) throws {
        var probe = ProbeReport()
        probe.codec = name
        let manifest = VideoManifest(input: InputRecord(path: "/videos/\(name).mp4", sizeBytes: 1, modifiedSeconds: 0),
                                     probe: probe)
        let page = ContactSheetWriter.html(for: [ContactSheetWriter.Entry(folder: name, manifest: manifest)],
                                           title: name)
        // Each element that carries the name, alone, is well-formed XML: libxml2 reads its text back.
        for (open, close) in [("<title>", "</title>"), ("<h1>", "</h1>"), ("<h2>", "</h2>"), ("<div class=\"path\">", "</div>")] {
            let start = try #require(page.range(of: open), "\(open) missing")
            let end = try #require(page.range(of: close, range: start.upperBound..<page.endIndex))
            let element = try XMLDocument(data: Data(page[start.lowerBound..<end.upperBound].utf8)).rootElement()
            let expected = open.hasPrefix("<div") ? "/videos/\(name).mp4" : name
            #expect(element?.stringValue == expected, "\(open)")
        }
        #expect(!page.contains(name) || MarkupEscaping.escaped(name) == name, "the raw name never reaches the page")
    }

    @Test func onlyTheFiveMarkupCharactersChange() {
        #expect(MarkupEscaping.escaped("<a href=\"x\">Tom's & Jerry</a>")
            == "&lt;a href=&quot;x&quot;&gt;Tom&#39;s &amp; Jerry&lt;/a&gt;")
        #expect(MarkupEscaping.escaped("Ünïcödé 日本語 🎬 /path-1_2.mp4") == "Ünïcödé 日本語 🎬 /path-1_2.mp4")
    }
}
