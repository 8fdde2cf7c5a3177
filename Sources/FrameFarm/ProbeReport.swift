import Foundation
import FrameFarmMedia

extension ProbeReport {
    init(path: String, facts: MediaFacts, policy: ModePolicy) {
        self.init()
        let info = facts.info
        let geometry = info.geometry
        let display = geometry.displaySize
        let contentRect = ProbeReport.Rect(geometry.displayPixelRect(ofCoded: facts.codedContentRect))
        let contentSize = contentRect.pixelRect.size
        self.path = path
        container = info.containerName
        codec = info.codecName
        rendition = info.rendition
        codecProfile = info.codecProfile
        codecLevel = info.codecLevel
        codecTag = info.codecTag
        fileFormat = info.fileFormat
        indexFirst = facts.indexFirst
        pixelFormat = info.pixelFormatName
        codedWidth = geometry.codedSize.width
        codedHeight = geometry.codedSize.height
        sampleAspectRatio = geometry.sampleAspectRatio.description
        rotation = geometry.transform.rotation
        mirrored = geometry.transform.mirrored
        displayWidth = display.width
        displayHeight = display.height
        // Shapes from the exact display aspect: the sizes are rounded to whole pixels, and 720x480 at 32:27 (16:9)
        // read as 853x480, 1.7771.
        aspectRatio = ProbeReport.rounded(geometry.displayAspect(ofCoded: geometry.codedSize).aspectRatio)
        aspectClass = AspectClass(displaySize: contentSize)
        defaultMode = ProbeReport.defaultMode(of: contentSize, policy: policy)
        self.policy = policy
        durationSeconds = ProbeReport.rounded(facts.timelineSeconds, places: 3)
        skippedRenditions = info.skippedRenditions.isEmpty ? nil : info.skippedRenditions
        audio = info.audioTracks.isEmpty ? nil : info.audioTracks
        // A lead under half a millisecond (MPEG-TS rounds its streams' starts to its 90-kHz clock) is none.
        let lead = ProbeReport.rounded(info.leadSeconds, places: 3)
        videoStartSeconds = lead > 0 ? lead : nil
        frameRate = info.frameRate.map { ProbeReport.rounded($0) }
        keyframeIntervalSeconds = facts.keyframeIntervalSeconds.map { ProbeReport.rounded($0, places: 3) }
        keyframeIntervalMaxSeconds = facts.longestKeyframeIntervalSeconds.map { ProbeReport.rounded($0, places: 3) }
        blackOpeningSeconds = facts.blackOpeningSeconds.map { ProbeReport.rounded($0, places: 3) }
        frameTiming = facts.frameTiming.map { timing in
            var rounded = timing
            rounded.medianFrameSeconds = ProbeReport.rounded(timing.medianFrameSeconds, places: 6)
            rounded.shortestFrameSeconds = ProbeReport.rounded(timing.shortestFrameSeconds, places: 6)
            rounded.longestFrameSeconds = ProbeReport.rounded(timing.longestFrameSeconds, places: 6)
            rounded.irregularShare = ProbeReport.rounded(timing.irregularShare, places: 3)
            rounded.jumps = timing.jumps.map { TimestampJump(atSeconds: ProbeReport.rounded($0.atSeconds, places: 3),
                                                             bySeconds: ProbeReport.rounded($0.bySeconds, places: 3)) }
            rounded.repeats = timing.repeats.map {
                TimestampRepeats(count: $0.count, firstAtSeconds: ProbeReport.rounded($0.firstAtSeconds, places: 3))
            }
            return rounded
        }
        colorMatrix = info.color.matrix
        colorRange = info.color.range
        colorTransfer = info.color.transfer
        colorPrimaries = info.color.primaries
        peakLuminance = info.color.peakLuminance
        chromaSiting = info.color.chromaSiting
        colorTagsMissing = info.untaggedColor.isEmpty ? nil : info.untaggedColor
        interlaced = info.interlaced
        combing = facts.combing
        damagedData = facts.damage
        self.contentRect = contentRect
        contentAspectRatio = ProbeReport.rounded(geometry.displayAspect(ofCoded: facts.codedContentRect.size).aspectRatio)
        paddingDetected = facts.codedContentRect.size != geometry.codedSize
        padding = facts.padding.kind
        paddingSamples = facts.padding.usableSamples
        paddingConfidence = facts.padding.confidence
        likelyContentRect = Rect(geometry.displayPixelRect(ofCoded: facts.padding.likelyContentRect))
        paddingEdgeSamples = facts.padding.edgeSamples.displayed(rotation: geometry.transform.rotation,
                                                                 mirrored: geometry.transform.mirrored)
        if let inside = facts.padding.partialContentRect, let share = facts.padding.partialShare {
            partialPadding = PartialPadding(contentRect: Rect(geometry.displayPixelRect(ofCoded: inside)),
                                            share: ProbeReport.rounded(share, places: 2))
        }
        cutShortAtSeconds = facts.cutShortAtSeconds.map { ProbeReport.rounded(info.leadSeconds + $0, places: 3) }
    }

    private static func rounded(_ value: Double, places: Int = 4) -> Double {
        let scale = pow(10, Double(places))
        return (value * scale).rounded() / scale
    }
}

/// `framefarm probe`: facts about each input; failures don't stop the others.
public enum Prober {
    /// Probes `paths` concurrently, `width` at once (one per core by default); results come back in input order.
    /// A multivariant input is probed at the rendition `rendition` picks (the highest by default).
    public static func probe(paths: [String], policy: ModePolicy = .hig, maxPixels: Int = BatchSettings.defaultMaxPixels,
                             rendition: RenditionChoice = .highest, width: Int = Concurrent.cores) -> [Result<ProbeReport, InputFailure>] {
        ParallelBatch.map(paths, width: width) { path in
            do {
                let facts = try MediaProber.probe(path: path, maxPixels: maxPixels,
                                                  rendition: RenditionRequest(choice: rendition, purpose: "probe"))
                return .success(ProbeReport(path: path, facts: facts, policy: policy))
            } catch {
                return .failure(InputFailure(path: path, error: error))
            }
        }
    }
}
