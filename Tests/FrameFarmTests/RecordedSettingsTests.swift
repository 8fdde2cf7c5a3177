import Foundation
import Testing
@testable import FrameFarm
import FrameFarmCore

/// The settings a manifest section records: typed values compared as values on resume, written as the strings
/// manifest.json has always held.
@Suite struct RecordedSettingsTests {
    /// Settings unlike the defaults in every field a parser could get wrong.
    static func unusualSettings() throws -> (PreviewSettings, ThumbnailSettings, PosterSettings) {
        var preview = PreviewOptions()
        preview.devices = Array(DeviceCatalog.builtIn.devices.prefix(2))
        preview.orientations = [.portrait, .landscape]
        preview.modes = try ModeSelection(parsing: "auto,stretch")
        preview.frame = .percent(12.5)
        preview.overlays = []
        preview.fitWithin = .safeArea
        preview.removePadding = .off
        preview.format = .webp
        preview.quality = 42
        preview.resampling = Resampling(filter: .catmullRom, linearLight: true)
        var thumbnails = ThumbnailOptions()
        thumbnails.spacing = .count(37)
        thumbnails.columns = 7
        thumbnails.rows = 3
        thumbnails.seek = .keyframe
        thumbnails.manifests = [.vtt, .iframes]
        var poster = PosterOptions()
        poster.frame = .seconds(3.25)
        poster.widths = [640, 1920]
        return (preview.settings(policy: .maxCrop(percent: 7.5)), thumbnails.settings, poster.settings)
    }

    @Test func everySettingReadsBackAsTheSameValue() throws {
        let (preview, thumbnails, poster) = try Self.unusualSettings()
        #expect(SettingsRecord.read(PreviewSettings.self, from: SettingsRecord.record(preview)) == preview)
        #expect(SettingsRecord.read(ThumbnailSettings.self, from: SettingsRecord.record(thumbnails)) == thumbnails)
        #expect(SettingsRecord.read(PosterSettings.self, from: SettingsRecord.record(poster)) == poster)
        let defaults = PreviewOptions().settings(policy: .hig)
        #expect(SettingsRecord.read(PreviewSettings.self, from: SettingsRecord.record(defaults)) == defaults)
        #expect(defaults != preview)
    }

    /// The strings documented in docs/commands.md ("manifest.json"), so manifests keep their bytes.
    @Test func theRecordKeepsTheDocumentedKeysAndSpelling() throws {
        #expect(SettingsRecord.record(ThumbnailOptions().settings) == [
            "width": "160", "spacing": "interval 10.0", "grid": "10x10", "format": "jpeg", "quality": "85",
            "seek": "exact", "manifests": "dash,hls,iframes,vtt", "removePadding": "auto", "filter": "lanczos3",
            "linearLight": "off",
        ])
        let (preview, _, poster) = try Self.unusualSettings()
        let ids = DeviceCatalog.builtIn.devices.prefix(2).map(\.id).joined(separator: ",")
        #expect(SettingsRecord.record(preview) == [
            "devices": ids, "orientations": "portrait,landscape", "modes": "auto,stretch", "at": "12.5%",
            "overlays": "", "fitWithin": "safe-area", "removePadding": "off", "policy": "max-crop:7.5",
            "format": "webp", "quality": "42", "filter": "catmull-rom", "linearLight": "on",
        ])
        #expect(SettingsRecord.record(poster) == [
            "at": "3.25", "widths": "640,1920", "format": "jpeg", "quality": "90", "removePadding": "auto",
            "filter": "lanczos3", "linearLight": "off",
        ])
    }

    /// A record an older FrameFarm wrote (preview's had no `quality`) or one edited by hand does not read: the
    /// outputs are redone rather than trusted.
    @Test func aRecordWithAKeyMissingOrUnreadableIsNotCurrent() {
        var record = SettingsRecord.record(PreviewOptions().settings(policy: .hig))
        record["quality"] = nil
        #expect(SettingsRecord.read(PreviewSettings.self, from: record) == nil)
        var poster = SettingsRecord.record(PosterOptions().settings)
        poster["widths"] = "640,wide"
        #expect(SettingsRecord.read(PosterSettings.self, from: poster) == nil)
    }
}
