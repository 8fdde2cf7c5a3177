import Testing
@testable import FrameFarmCore

/// The review page's "picture" overlay on a letterboxed video (a 320x240 frame whose picture is 320x134 from row
/// 53), on a 1920x1080 screen, against positions worked out by hand.
@Suite struct ReviewPageGeometryTests {
    static let frame = PixelSize(width: 320, height: 240)
    static let picture = ProbeReport.Rect(x: 0, y: 53, width: 320, height: 134)

    static func overlay(mode: ViewingMode, paddingRemoved: Bool) -> SourceRect {
        var probe = ProbeReport()
        probe.displayWidth = frame.width
        probe.displayHeight = frame.height
        probe.contentRect = picture
        probe.paddingDetected = true
        let placed = paddingRemoved ? PixelSize(width: picture.width, height: picture.height) : frame
        let render = PreviewRender(file: "preview/tv-landscape-\(mode.rawValue).png", device: "tv", deviceName: "TV",
                                   orientation: .landscape, mode: mode, isDefault: true,
                                   placement: Placement(content: placed, screen: PixelSize(width: 1920, height: 1080),
                                                        safeAreaInsets: PixelInsets(), mode: mode))
        let preview = PreviewSection(settings: [:], gpu: GPURecord(name: "test", type: "cpu"), frameTimeSeconds: 1,
                                     frameChoice: "poster", paddingDetected: true, paddingRemoved: paddingRemoved,
                                     contentRect: paddingRemoved ? picture : ProbeReport.Rect(PixelRect(size: frame)),
                                     renders: [render])
        return ContactSheetWriter.pictureRect(render, preview: preview, probe: probe)
    }

    /// Fit: the frame fits as 1440x1080 from x = 240 (4.5x), so the picture spans rows 238.5 to 841.5. Fill: the
    /// frame's middle 320x180 (from row 30) fills the screen (6x), so the picture starts at row (53 - 30) x 6.
    @Test(arguments: [false, true]) func thePictureLiesWhereTheFrameWithItsPaddingPutsIt(paddingRemoved: Bool) {
        #expect(Self.overlay(mode: .fit, paddingRemoved: paddingRemoved)
            == SourceRect(x: 240, y: 238.5, width: 1440, height: 603))
        #expect(Self.overlay(mode: .fill, paddingRemoved: paddingRemoved)
            == SourceRect(x: 0, y: 138, width: 1920, height: 804))
    }
}
