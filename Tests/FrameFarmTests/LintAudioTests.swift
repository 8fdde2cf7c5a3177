import Foundation
import Testing
@testable import FrameFarm

/// `probe` reports each audio stream as FFmpeg wrote it, and `lint --profile apple-hls|web` fails the audio codecs
/// and profiles its target does not play (the files are made by the ffmpeg CLI, with video both targets take).
@Suite struct LintAudioTests {
    /// An H.264 MP4 (index first) of one second, with `audio` as ffmpeg's audio arguments (none: no audio).
    private func video(_ directory: TemporaryDirectory, _ name: String, audio: [[String]]) throws -> String {
        let path = directory.file(name)
        var arguments = ["-f", "lavfi", "-i", "testsrc2=s=160x90:d=1:r=25"]
        for _ in audio { arguments += ["-f", "lavfi", "-i", "sine=d=1:sample_rate=48000"] }
        arguments += ["-map", "0"] + audio.indices.flatMap { ["-map", "\($0 + 1)"] }
        arguments += ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "25", "-movflags", "+faststart"]
        for (index, options) in audio.enumerated() {
            arguments += options.enumerated().map { $0.offset % 2 == 0 ? "\($0.element):a:\(index)" : $0.element }
        }
        try KeyframeSeekTests.ffmpeg(arguments + [path])
        return path
    }

    private func lint(_ paths: [String], _ extra: [String]) throws -> [[String: Any]] {
        let run = try CommandLineTests.run(["lint", "--json"] + extra + paths)
        return try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]] ?? []
    }

    private func audioFindings(_ result: [String: Any]) -> [String] {
        (result["findings"] as? [[String: Any]] ?? []).filter { $0["rule"] as? String == "audio-codec" }
            .compactMap { $0["message"] as? String }
    }

    @Test func deliveryProfilesCheckEachAudioStream() throws {
        let directory = TemporaryDirectory()
        let aac = ["-c", "aac"]
        let cases: [(path: String, appleHLS: [String], web: [String])] = [
            (try video(directory, "silent.mp4", audio: []), [], []),
            (try video(directory, "aac.mp4", audio: [aac]), [], []),
            (try video(directory, "aac-main.mp4", audio: [["-c", "aac", "-profile", "aac_main"]]),
             ["audio aac Main profile: the target plays aac in LC, HE-AAC, HE-AACv2"],
             ["audio aac Main profile: the target plays aac in LC, HE-AAC, HE-AACv2"]),
            (try video(directory, "ac3.mp4", audio: [["-c", "ac3"]]), [], ["audio ac3: the target plays audio in aac, flac, mp3, opus"]),
            (try video(directory, "opus.mp4", audio: [["-c", "libopus"]]),
             ["audio opus: the target plays audio in aac, ac3, alac, eac3, flac"], []),
            (try video(directory, "alac.mp4", audio: [["-c", "alac"]]), [], ["audio alac: the target plays audio in aac, flac, mp3, opus"]),
            // Every stream is judged, the second named by its place.
            (try video(directory, "aac-mp3.mp4", audio: [aac, ["-c", "libmp3lame"]]),
             ["audio stream 2 (mp3): the target plays audio in aac, ac3, alac, eac3, flac"], []),
        ]
        for profile in ["apple-hls", "web"] {
            let results = try lint(cases.map(\.path), ["--profile", profile])
            try #require(results.count == cases.count)
            for (result, expected) in zip(results, cases) {
                #expect(audioFindings(result) == (profile == "web" ? expected.web : expected.appleHLS), "\(profile) \(expected.path)")
                #expect((result["rulesRun"] as? [String] ?? []).contains("audio-codec"))
            }
        }
        // `default` has no target: the rule does not run.
        let ranByDefault = try lint([cases[2].path], []).first?["rulesRun"] as? [String] ?? []
        #expect(!ranByDefault.isEmpty && !ranByDefault.contains("audio-codec"))
    }

    /// `probe --json` gives each audio stream's codec, profile, channels and rate as they were encoded.
    @Test func probeListsTheAudioStreamsAsEncoded() throws {
        let directory = TemporaryDirectory()
        let both = try video(directory, "both.mp4", audio: [["-c", "aac", "-ac", "6"], ["-c", "libmp3lame", "-ar", "44100"]])
        let silent = try video(directory, "silent.mp4", audio: [])
        let run = try CommandLineTests.run(["probe", "--json", both, silent])
        let reports = try JSONDecoder().decode([ProbeReport].self, from: Data(run.stdout.utf8))
        #expect(reports.first?.audio == [ProbeReport.AudioTrack(codec: "aac", profile: "LC", channels: 6, sampleRate: 48000),
                                         ProbeReport.AudioTrack(codec: "mp3", channels: 1, sampleRate: 44100)])
        #expect(reports.last?.audio == nil && !run.stdout.contains("\"audio\" : null"))
        let text = try CommandLineTests.run(["probe", both])
        #expect(text.stdout.contains("audio: aac LC, 6 ch, 48 kHz; mp3, 1 ch, 44.1 kHz"), "\(text.stdout)")
    }

    /// A policy's own audio codecs replace the profile's; its mistakes are usage errors naming the rule.
    @Test func aPolicyNamesTheAudioCodecsItsTargetPlays() throws {
        let directory = TemporaryDirectory()
        let aac = try video(directory, "aac.mp4", audio: [["-c", "aac"]])
        let opusOnly = directory.write("opus.json", Data("""
            {"profile": "web", "rules": {"audio-codec": {"codecs": {"opus": []}}}}
            """.utf8))
        #expect(try lint([aac], ["--policy-file", opusOnly]).first.map(audioFindings) == ["audio aac: the target plays audio in opus"])
        let mistakes: [(String, String)] = [
            ("{\"rules\": {\"audio-codec\": {\"enabled\": true}}}",
             ":1: rule \"audio-codec\": enabled with no limits, it would pass every input: give codecs"),
            ("{\"rules\": {\"audio-codec\": {\"enabled\": true, \"codecs\": {\"aac\": [\"LCC\"]}}}}",
             ":1: rule \"audio-codec\": unknown aac profile \"LCC\" (FFmpeg names aac's LC, HE-AAC,"),
            // A video codec where audio ones are named: no audio stream is h264, so every one would fail.
            ("{\"rules\": {\"audio-codec\": {\"enabled\": true, \"codecs\": {\"h264\": []}}}}",
             ":1: rule \"audio-codec\": h264 is a video codec; audio-codec names audio codecs (aac, opus, mp3, ...)"),
            ("{\"rules\": {\"codec\": {\"enabled\": true, \"allowed\": {\"aac\": {}}}}}",
             ":1: rule \"codec\": aac is an audio codec; codec names video codecs (h264, hevc, vp9, av1, ...)"),
            // A profile for a codec that has none: no stream would carry it, and every one would pass.
            ("{\"rules\": {\"audio-codec\": {\"enabled\": true, \"codecs\": {\"opus\": [\"HE-AAC\"]}}}}",
             ":1: rule \"audio-codec\": unknown opus profile \"HE-AAC\" (FFmpeg names no opus profiles: give an empty list)"),
            ("{\"rules\": {\"audio-codec\": {\"enabled\": true, \"codecs\": {\"aac\": \"LC\"}}}}",
             ":1: rule \"audio-codec\": codecs \"aac\" must be a list of strings"),
            ("{\"rules\": {\"audio-codec\": {\"codecs\": {\"aac\": []}}}}",
             ":1: rule \"audio-codec\": limits given to a disabled rule, which does not run: add \"enabled\": true"),
        ]
        for (index, (text, expected)) in mistakes.enumerated() {
            let file = directory.write("bad\(index).json", Data(text.utf8))
            let run = try CommandLineTests.run(["lint", "--policy-file", file, aac])
            #expect(run.status == 2 && run.stderr.contains(file + expected), "\(run.stderr)")
        }
    }
}
