import Foundation
import FrameFarmGPU

/// Overlays `preview` can draw (`--overlay safe-area,crop,corners`).
public enum PreviewOverlay: String, Sendable, CaseIterable {
    /// An outline of the safe area.
    case safeArea = "safe-area"
    /// On fit renders, a red tint over the part of the picture that fill would crop away.
    case crop
    /// The screen's rounded corners masked to black.
    case corners

    public static func parseList(_ text: String) throws -> Set<PreviewOverlay> {
        if text == "none" { return [] }
        return Set(try text.split(separator: ",", omittingEmptySubsequences: false).map { item in
            guard let overlay = PreviewOverlay(rawValue: String(item)) else {
                throw ValueParseError(kind: "overlay", value: String(item),
                                      expected: "safe-area, crop or corners, comma-separated, or none alone")
            }
            return overlay
        })
    }
}

/// Everything `preview` can be asked, with the documented defaults.
public struct PreviewOptions: Sendable {
    public var devices: [Device] = DeviceCatalog.builtIn.devices
    /// nil: landscape, plus portrait for videos whose display orientation is portrait.
    public var orientations: [Orientation]?
    public var modes = ModeSelection.standard
    public var frame = FrameChoice.poster
    public var overlays: Set<PreviewOverlay> = [.safeArea, .corners]
    public var fitWithin = FitRegion.screen
    public var removePadding = PaddingRemoval.auto
    public var format = ImageFormat.png
    public var quality = 90
    public var resampling = Resampling()

    public init() {}

    /// A device as the settings record it: a built-in one by its id (so records stay current across versions
    /// whose catalog is the same), one from a devices file by its id and a hash of its figures, so that a re-run
    /// after the file changed (its pixels, insets, corners) redoes the renders.
    static func recordedID(_ device: Device) -> String {
        if DeviceCatalog.builtIn.device(id: device.id) == device { return device.id }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let figures = (try? encoder.encode(device)).map { String(decoding: $0, as: UTF8.self) } ?? device.name
        return device.id + "@" + OutputLayout.shortHash(figures)
    }

    /// The default mode of each screen follows the batch's policy (`BatchSettings.policy`), recorded here too.
    func settings(policy: ModePolicy) -> PreviewSettings {
        PreviewSettings(devices: devices.map(Self.recordedID), orientations: orientations, modes: modes, at: frame,
                        overlays: overlays, fitWithin: fitWithin, removePadding: removePadding,
                        policy: policy, format: format, quality: quality, filter: resampling.filter,
                        linearLight: OnOff(resampling.linearLight))
    }
}

/// What a preview section records it was made with (devices by id, with a hash of their figures when they come
/// from a devices file); a re-run with other settings redoes it.
public struct PreviewSettings: Codable, Hashable, Sendable {
    @Setting var devices: [String]
    @Setting var orientations: [Orientation]?
    @Setting var modes: ModeSelection
    @Setting var at: FrameChoice
    @Setting var overlays: Set<PreviewOverlay>
    @Setting var fitWithin: FitRegion
    @Setting var removePadding: PaddingRemoval
    @Setting var policy: ModePolicy
    @Setting var format: ImageFormat
    @Setting var quality: Int
    @Setting var filter: ResamplingFilter
    @Setting var linearLight: OnOff
}

/// One planned render: a device screen in one orientation and mode, the placement the geometry gives, and the
/// GPU job and canvas that draw it.
struct PlannedRender {
    var record: PreviewRender
    var canvas: CanvasSpec
    var job: RenderJob

    /// This render's review copy for the page: at most `PreviewRender.reviewSide` px on its long side, of the
    /// screen's shape, shrunk from the render by area averaging (`AreaAverage`) as it is encoded.
    var reviewCopy: (file: String, size: PixelSize) {
        let size = canvas.size
        let scale = min(1, Double(PreviewRender.reviewSide) / Double(max(size.width, size.height)))
        let name = URL(fileURLWithPath: record.file).deletingPathExtension().lastPathComponent
        return ("preview/review/\(name).jpg", PixelSize(width: max(1, Int((Double(size.width) * scale).rounded())),
                                                     height: max(1, Int((Double(size.height) * scale).rounded()))))
    }
}

/// Plans every render of one video: the same geometry code places every frame; the GPU only executes.
enum PreviewPlan {
    static let safeAreaColor = RGBA8(red: 255, green: 214, blue: 10, alpha: 230)
    static let cropTint = RGBA8(red: 255, green: 59, blue: 48, alpha: 96)

    /// - Parameters:
    ///   - geometry: the stream's display geometry; `codedContent` the part of the coded frame to show.
    static func renders(options: PreviewOptions, policy: ModePolicy, geometry: DisplayGeometry,
                        codedContent: PixelRect) -> [PlannedRender] {
        let contentInDisplay = geometry.displayRect(ofCoded: SourceRect(codedContent))
        let content = PixelSize(width: max(1, Int(contentInDisplay.width.rounded())),
                                height: max(1, Int(contentInDisplay.height.rounded())))
        let aspect = geometry.displayAspect(ofCoded: codedContent.size)
        let orientations = options.orientations
            ?? (content.orientation == .portrait ? [.landscape, .portrait] : [.landscape])
        var renders: [PlannedRender] = []
        for device in options.devices {
            var screens = orientations.compactMap(device.screen)
            // A device used one way only (a TV, a watch) is rendered that way whatever was asked.
            if screens.isEmpty, let only = device.screens.first { screens = [only] }
            for screen in screens {
                let defaultMode = policy.mode(content: content, screen: screen.size)
                var modes: [ViewingMode] = []
                for choice in options.modes.choices {
                    let mode = choice.resolved(content: content, screen: screen.size, policy: policy)
                    if !modes.contains(mode) { modes.append(mode) }
                }
                for mode in modes {
                    let placement = Placement(content: content, aspect: aspect, screen: screen.size,
                                              safeAreaInsets: screen.safeAreaInsets, mode: mode, region: options.fitWithin)
                    let file = "preview/\(device.id)-\(screen.orientation.rawValue)-\(mode.rawValue).\(options.format.fileExtension)"
                    let record = PreviewRender(file: file, device: device.id, deviceName: device.name,
                                               orientation: screen.orientation, mode: mode,
                                               isDefault: mode == defaultMode, placement: placement)
                    // The placement works on whole display pixels; the content's exact display size may be
                    // fractional (anamorphic), so its crop is scaled back onto it: a whole-picture crop stays
                    // exactly the coded content, never a fraction of a pixel past the frame's edge.
                    let scaleX = contentInDisplay.width / Double(content.width)
                    let scaleY = contentInDisplay.height / Double(content.height)
                    let crop = SourceRect(x: contentInDisplay.x + placement.sourceCrop.x * scaleX,
                                          y: contentInDisplay.y + placement.sourceCrop.y * scaleY,
                                          width: placement.sourceCrop.width * scaleX,
                                          height: placement.sourceCrop.height * scaleY)
                    let job = RenderJob(sourceIndex: 0, sourceCrop: geometry.codedRect(ofDisplay: crop),
                                        destination: placement.destination, canvasIndex: renders.count,
                                        transform: geometry.transform)
                    let canvas = CanvasSpec(size: screen.size,
                                            overlays: overlays(options.overlays, screen: screen, placement: placement))
                    var plan = PlannedRender(record: record, canvas: canvas, job: job)
                    plan.record.reviewFile = plan.reviewCopy.file
                    renders.append(plan)
                }
            }
        }
        return renders
    }

    /// Tint first (it belongs to the picture), then the safe-area outline, then the corner mask over everything.
    private static func overlays(_ wanted: Set<PreviewOverlay>, screen: DeviceScreen, placement: Placement) -> [Overlay] {
        var overlays: [Overlay] = []
        if wanted.contains(.crop), placement.mode == .fit {
            overlays += fillCropTints(placement).map { Overlay.tint($0, color: cropTint) }
        }
        if wanted.contains(.safeArea), screen.safeArea != PixelRect(size: screen.size) {
            // By the long side, so a device's outline is as thick in portrait as in landscape.
            let thickness = max(2, Int((Double(max(screen.size.width, screen.size.height)) / 500).rounded()))
            overlays.append(.safeAreaOutline(screen.safeArea, color: safeAreaColor, thickness: thickness))
        }
        if wanted.contains(.corners), let radius = screen.cornerRadius, radius > 0 {
            overlays.append(.roundedCornerMask(radius: radius))
        }
        return overlays
    }

    /// On a fit render, the parts of the picture fill would crop: the fit rect minus fill's kept rect mapped into it.
    static func fillCropTints(_ fit: Placement) -> [PixelRect] {
        let kept = Placement.fillCrop(of: fit.content, aspect: fit.aspect, toAspectOf: fit.screen)
        let scaleX = Double(fit.destination.width) / Double(fit.content.width)
        let scaleY = Double(fit.destination.height) / Double(fit.content.height)
        let left = fit.destination.x + Int((kept.x * scaleX).rounded())
        let right = fit.destination.x + Int((kept.maxX * scaleX).rounded())
        let top = fit.destination.y + Int((kept.y * scaleY).rounded())
        let bottom = fit.destination.y + Int((kept.maxY * scaleY).rounded())
        let destination = fit.destination
        return [
            PixelRect(x: destination.x, y: destination.y, width: left - destination.x, height: destination.height),
            PixelRect(x: right, y: destination.y, width: destination.maxX - right, height: destination.height),
            PixelRect(x: left, y: destination.y, width: right - left, height: top - destination.y),
            PixelRect(x: left, y: bottom, width: right - left, height: destination.maxY - bottom),
        ].filter { !$0.isEmpty }
    }
}
