import Foundation
import FrameFarmCore
import FrameFarmMedia

/// Something about an input's outputs the user should know, though they were made. Typed, so callers tell
/// warnings apart by case, not by text; `description` is the one place each is worded (the CLI prints it, the
/// thumbnails section of manifest.json records it, `--json` carries it as a string).
public enum InputWarning: Sendable, Hashable, Encodable, CustomStringConvertible {
    /// The file stops before its index says (`StreamFacts.cutShortAtSeconds`); `consequence` says what became of
    /// the outputs past the cut, nil when none lay past it.
    case cutShort(atSeconds: Double, ofSeconds: Double, consequence: CutShortConsequence?)
    /// Damaged data was decoded for the outputs; `consequence` says where it may show.
    case damagedData(DamagedData, consequence: DamageConsequence?)
    /// The track's sheets use a smaller grid than `asked`, so that no sheet is longer than its limit, or, with
    /// `byDevice`, so that each fits what the GPU draws into at once. `width`: the track's, when there are several.
    case sheetGridLowered(asked: SheetGrid, columns: Int, rows: Int, width: Int?, byDevice: Bool)
    /// The `width`-px track's tiles are narrower, `tile`, so that one tile is no taller than `maxSheetSide`: the
    /// video is far taller than wide.
    case tilesNarrowed(width: Int, tile: PixelSize, maxSheetSide: Int)
    /// Thumbnails `spacing` seconds apart, closer than the video's frames (`frameSeconds` each): most tiles show
    /// the same frame as the one before.
    case thumbnailsCloserThanFrames(spacing: Double, frameSeconds: Double)
    /// Video packets carry no timestamp, so frames may be shown at other times: `FrameTiming.untimedNote`.
    case missingTimestamps(note: String)
    /// A rendition of the ladder was left out, its playlist unreadable (`reason` says why), as players skip it.
    case renditionSkipped(reason: String)
    /// The auto poster's every candidate, the video's first and last seconds included, was black, washed out or
    /// flat: the poster (of mean `brightness`, 0 black to 1 white) shows little.
    case posterShowsLittle(brightness: Double, onlyFrame: Bool)
    /// A preview or poster asked for a frame (`--at`) past the video's end (`endSeconds`, the file's timeline):
    /// its last frame, at `shownSeconds`, is shown.
    case frameAskedPastEnd(askedSeconds: Double, endSeconds: Double, shownSeconds: Double)
    /// The outputs were replaced, but the earlier set could not be removed (a folder of it made read-only).
    case oldOutputsLeft(folder: String, leftAt: String)

    public enum CutShortConsequence: Sendable, Hashable {
        /// A preview or poster by time asked for a frame past the cut: the last one before it is shown.
        case frameAskedPastCut(askedSeconds: Double, shownSeconds: Double)
        /// The auto poster was picked from the part of the video before the cut.
        case posterPickedBeforeCut(shownSeconds: Double)
        /// Thumbnails from `fromSeconds` on show the last keyframe (or frame, in exact mode) before the cut.
        case thumbnailsHoldLastFrame(fromSeconds: Double, keyframe: Bool)
    }

    public enum DamageConsequence: Sendable, Hashable {
        /// Damage on the way to a preview's or poster's frame, which may show it; for the auto poster, only when
        /// every candidate frame was damaged.
        case frameShownMayShowIt(everyCandidateDamaged: Bool)
    }

    public var description: String {
        switch self {
        case .cutShort(let cut, let duration, let consequence):
            ProbeReport.cutShortNote(atSeconds: cut, ofSeconds: duration) + (consequence.map { "; " + $0.text } ?? "")
        case .damagedData(let damage, let consequence):
            damage.description + (consequence.map { " " + $0.text } ?? "")
        case .sheetGridLowered(let asked, let columns, let rows, let width, let byDevice):
            (width.map { "\($0)-px track: " } ?? "") + "sheet grid lowered from \(asked.columns)x\(asked.rows) to \(columns)x\(rows) so that "
                + (byDevice ? "each sheet fits what the GPU draws into at once"
                            : "no sheet is longer than \(asked.maxSheetSide) px (--max-sheet-pixels)")
        case .posterShowsLittle(let brightness, let onlyFrame):
            (onlyFrame ? "its only frame is " : "every frame looked at for the poster is ")
                + (brightness < 0.08 ? "black" : brightness > 0.97 ? "washed out" : "flat") + ": the poster shows little"
                + (onlyFrame ? "" : "; pick a time with --at (--poster-at for thumbnails --poster)")
        case .frameAskedPastEnd(let asked, let end, let shown):
            String(format: "the frame at %.3f s was asked for (--at), past the video's end at %.3f s: its last frame "
                   + "(%.3f s) is shown", asked, end, shown)
        case .missingTimestamps(let note):
            note
        case .renditionSkipped(let reason):
            "a rendition is left out of the ladder, as players leave it: \(reason)"
        case .thumbnailsCloserThanFrames(let spacing, let frame):
            String(format: "thumbnails %g s apart, closer than the video's frames (%g s each): most tiles repeat the one "
                   + "before (--interval, --count)", spacing, frame)
        case .oldOutputsLeft(let folder, let leftAt):
            "the earlier \(folder)/ could not be removed once replaced: it is left as \(leftAt) (permissions?); "
                + "remove it by hand"
        case .tilesNarrowed(let width, let tile, let maxSheetSide):
            "\(width)-px thumbnails narrowed to \(tile.width)x\(tile.height) so that no sheet is longer than "
                + "\(maxSheetSide) px (--max-sheet-pixels): the picture is far taller than wide"
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension InputWarning.CutShortConsequence {
    fileprivate var text: String {
        switch self {
        case .frameAskedPastCut(let asked, let shown):
            String(format: "the frame at %.3f s was asked for, the last one before the cut (%.3f s) is shown",
                   asked, shown)
        case .posterPickedBeforeCut(let shown):
            String(format: "the frame shown (%.3f s) was picked from the video before it", shown)
        case .thumbnailsHoldLastFrame(let from, let keyframe):
            String(format: "thumbnails from %.3f s on show the last %@ before it", from, keyframe ? "keyframe" : "frame")
        }
    }
}

extension InputWarning.DamageConsequence {
    fileprivate var text: String {
        switch self {
        case .frameShownMayShowIt(let every):
            "on the way to the frame shown, which may show it" + (every ? " (every candidate frame was damaged)" : "")
        }
    }
}
