import Foundation
import FrameFarmMedia

/// What the review page needs of a video besides its manifest: the cues of the WebVTT track its thumbnails job
/// wrote (the page scrubs from the very track players get) and where the page finds the source to play.
enum ContactSheetEntries {
    static func entry(folder: String, manifest: VideoManifest, layout: OutputLayout) -> ContactSheetWriter.Entry {
        ContactSheetWriter.Entry(folder: folder, manifest: manifest,
                                 thumbnailCues: thumbnailCues(of: manifest, in: layout.videoFolder(folder)),
                                 source: source(of: manifest.input.path, outputRoot: layout.root))
    }

    /// The cues of the first WebVTT file the thumbnails section lists, images made relative to the video's folder;
    /// none when there is no such file or it does not read back.
    static func thumbnailCues(of manifest: VideoManifest, in videoFolder: String) -> [ThumbnailCue] {
        guard let track = manifest.thumbnails?.manifests.first(where: { $0.hasSuffix(".vtt") }),
              let text = try? String(contentsOfFile: videoFolder + "/" + track, encoding: .utf8),
              var cues = WebVTTCueReader.cues(in: text) else { return [] }
        let trackFolder = (track as NSString).deletingLastPathComponent
        for index in cues.indices where !trackFolder.isEmpty && !RemoteInput.isRemote(cues[index].image) {
            cues[index].image = trackFolder + "/" + cues[index].image
        }
        return cues
    }

    /// A remote input's URL without query (its signature stays out of OUT); a local input's path relative to OUT,
    /// which keeps working when OUT and the videos move together or OUT is served with them.
    static func source(of input: String, outputRoot: String) -> ContactSheetWriter.Source? {
        if RemoteInput.isRemote(input) { return .url(RemoteInput.name(of: input)) }
        let target = OutputLayout.absolutePath(input).split(separator: "/")
        let root = OutputLayout.absolutePath(outputRoot).split(separator: "/")
        let shared = zip(target, root).prefix { $0 == $1 }.count
        guard shared < target.count else { return nil }
        return .relativePath((Array(repeating: "..", count: root.count - shared) + target[shared...].map(String.init))
            .joined(separator: "/"))
    }
}
