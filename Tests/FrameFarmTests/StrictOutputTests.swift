import Foundation
import Testing
@testable import FrameFarm

/// Every PNG the commands write passes `pngcheck` (a strict validator: chunk CRCs, order, zlib stream), which
/// libpng-based tools such as ImageMagick agree with; lenient readers (browsers, Pillow) let damage through.
@Suite struct StrictOutputTests {
    static let pngcheck = ["/usr/bin/pngcheck", "/usr/local/bin/pngcheck"].first(where: FileManager.default.isExecutableFile)

    @Test func everyPNGPassesPngcheck() throws {
        guard let pngcheck = Self.pngcheck else {
            // `make test` installs it; CI must run this test.
            #expect(ProcessInfo.processInfo.environment["CI"] == nil, "pngcheck is missing (scripts/install-deps.sh --test installs it)")
            print("StrictOutputTests: skipped, pngcheck is not installed (scripts/install-deps.sh --test installs it)")
            return
        }
        let directory = TemporaryDirectory()
        let sample = try makeSample(in: directory) { $0.letterbox = true }
        let out = directory.file("out")
        for arguments in [["preview", "--devices", "phones"], ["thumbnails", "--format", "png", "--count", "5", "--grid", "3x2"],
                          ["poster", "--format", "png", "--widths", "160"]] {
            let run = try CommandLineTests.run(arguments + [sample, "--out", out, "--quiet"])
            #expect(run.status == 0, "\(arguments[0]): \(run.stderr)")
        }
        let pngs = FileManager.default.enumerator(atPath: out)!.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".png") }.map { out + "/" + $0 }
        #expect(pngs.count >= 8, "previews, two sheets and two posters: \(pngs)")
        let check = Process()
        check.executableURL = URL(fileURLWithPath: pngcheck)
        check.arguments = ["-q"] + pngs
        let output = Pipe()
        check.standardOutput = output
        check.standardError = output
        try check.run()
        let report = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        check.waitUntilExit()
        #expect(check.terminationStatus == 0, "pngcheck: \(report)")
    }
}
