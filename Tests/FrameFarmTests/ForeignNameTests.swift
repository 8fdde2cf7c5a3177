import Foundation
import FrameFarmSamples
import Testing
@testable import FrameFarm

/// Files and folders whose names are not UTF-8 (a Latin-1 library's `caf\xE9.mp4`): they were refused with "its name
/// is not valid UTF-8", as Swift had put U+FFFD in place of their bytes. They are now read wherever they come from
/// (arguments, `--recursive`, `--inputs-from`), named `caf\xE9.mp4` in messages, and given Latin-1 output folders.
@Suite struct ForeignNameTests {
    /// `name` under `folder` as the bytes of a Latin-1 name (each character one byte).
    private static func latin1(_ folder: String, _ name: String) -> [CChar] {
        Array(folder.utf8CString.dropLast()) + [CChar(bitPattern: UInt8(ascii: "/"))]
            + name.unicodeScalars.map { CChar(bitPattern: UInt8($0.value)) } + [0]
    }

    @Test func latin1NamesAreReadFromEveryKindOfInputList() throws {
        let directory = TemporaryDirectory()
        let library = directory.file("library")
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
        let video = try makeSample(in: directory) { $0.durationSeconds = 2 }
        try #require(mkdir(Self.latin1(library, "f\u{F6}lder"), 0o755) == 0)
        try #require(link(video, Self.latin1(library, "caf\u{E9}.mp4")) == 0)
        try #require(link(video, Self.latin1(library, "f\u{F6}lder").dropLast() + Self.latin1("", "gr\u{FC}\u{DF}.mp4")) == 0)

        // Walked: both files, each on its frames, in Latin-1-named folders; the review page links the real files.
        let out = directory.file("out")
        let walked = try CommandLineTests.run(["thumbnails", "--recursive", library, "--out", out, "--interval", "0.5"],
                                              environment: ["TMPDIR": directory.path])
        #expect(walked.status == 0, "\(walked.stderr)")
        for folder in ["caf\u{E9}", "gr\u{FC}\u{DF}"] {
            #expect(try ThumbnailTests.expectTilesOnTheirFrames(in: out + "/\(folder)/thumbnails/", fps: 25).count == 4)
        }
        let page = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        #expect(page.contains("library/caf%E9.mp4\"") && page.contains("library/f%F6lder/gr%FC%DF.mp4\""))
        #expect(page.contains("/f\\xF6lder/gr\\xFC\\xDF.mp4<"), "the path shown")
        // The links FrameFarm opened the files through went with the process.
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!left.contains { $0.hasPrefix("framefarm-names") }, "\(left)")

        // Listed: the list's bytes name the file.
        let list = directory.file("list.txt")
        try Data(Self.latin1(library, "caf\u{E9}.mp4").dropLast().map { UInt8(bitPattern: $0) } + [10]).write(to: URL(fileURLWithPath: list))
        let listed = try CommandLineTests.run(["probe", "--inputs-from", list])
        #expect(listed.status == 0 && listed.stdout.hasPrefix(library + "/caf\\xE9.mp4\n"), "\(listed.stdout)\(listed.stderr)")

        // An argument: given through a shell, as bytes.
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "exec \"$0\" poster \"$(printf '%s/caf\\351.mp4' \"$1\")\" --out \"$2\"",
                           CommandLineTests.executable, library, directory.file("posters")]
        try shell.run()
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0)
        #expect(FileManager.default.fileExists(atPath: directory.file("posters/caf\u{E9}/poster.jpg")))
    }
}
