import CFFmpeg
import FrameFarmCore

/// Owns one decoded AVFrame in a layout the GPU uploads as-is (other formats were converted by
/// `FrameNormalizer`). Immutable once made, so it may be handed between threads.
// Unchecked: it owns an AVFrame (a C struct), never written after init.
public final class DecodedFrame: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<AVFrame>
    /// Presentation time in seconds, from the best-effort timestamp.
    public let timeSeconds: Double
    public let isKeyFrame: Bool
    public let format: FrameFormat
    /// The first segment of the run of a stitched playlist (`HLSMediaPlaylist.run(of:)`) it was decoded from:
    /// 0 for the first run, and for any other input. Set by its reader before it hands the frame out.
    public internal(set) var run = 0

    init(taking frame: UnsafeMutablePointer<AVFrame>, timeSeconds: Double, format: FrameFormat) {
        pointer = frame
        self.timeSeconds = timeSeconds
        self.isKeyFrame = framefarm_frame_is_key(frame) != 0
        self.format = format
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }

    public var size: PixelSize { PixelSize(width: format.width, height: format.height) }

    /// The pixel aspect ratio the bitstream gives this frame (0:1 when it gives none).
    public var sampleAspectRatio: SampleAspectRatio {
        SampleAspectRatio(Int(pointer.pointee.sample_aspect_ratio.num), Int(pointer.pointee.sample_aspect_ratio.den))
    }

    /// This frame's own geometry where it may differ from `stream`'s (an advertisement stitched in after a
    /// discontinuity): for a frame of another size, or of a later run whose bitstream gives another pixel aspect
    /// ratio (a 4:3 PAL advert in a 16:9 anamorphic programme), its size, its pixel aspect ratio (square where the
    /// bitstream gives none) and the stream's rotation. Nil otherwise: a frame of the first run shows with the
    /// stream's pixel aspect ratio, which a container may set over the bitstream's (`-aspect` with `-c copy`).
    public func ownGeometry(in stream: DisplayGeometry) -> DisplayGeometry? {
        let ownAspect = run > 0 && sampleAspectRatio.numerator > 0 && sampleAspectRatio.denominator > 0
            && sampleAspectRatio.value != stream.sampleAspectRatio.value
        guard size != stream.codedSize || ownAspect else { return nil }
        return DisplayGeometry(codedSize: size, sampleAspectRatio: sampleAspectRatio, transform: stream.transform)
    }

    /// Whether the decoder marked the frame interlaced: two fields, captured half a frame apart, in alternate
    /// rows. Shown whole, it combs wherever anything moved between them.
    public var isInterlaced: Bool { framefarm_frame_is_interlaced(pointer) != 0 }

    /// The field shown first (the top one unless the frame is bottom field first), alone: every other row of
    /// every plane (4:2:0 interlaced video alternates fields by chroma row too), as a frame of half the height.
    public var firstField: (format: FrameFormat, copy: (UnsafeMutableRawBufferPointer) -> Void,
                            planes: [PlaneMemory]?) {
        let firstRow = framefarm_frame_is_top_field_first(pointer) != 0 ? 0 : 1
        var field = format
        field.height = (format.height - firstRow + 1) / 2
        return (field, { [self] destination in copyPlanes(into: destination, as: field, firstRow: firstRow, rowStep: 2) },
                planeRows(firstRow: firstRow, rowStep: 2))
    }

    /// The planes in memory, in `format.packedPlanes` order; valid while the frame lives.
    public var planes: [PlaneMemory]? { planeRows(firstRow: 0, rowStep: 1) }

    /// Rows firstRow, firstRow + rowStep, ... of each plane; nil if a plane is missing.
    private func planeRows(firstRow: Int, rowStep: Int) -> [PlaneMemory]? {
        var planes: [PlaneMemory] = []
        for index in format.packedPlanes.indices {
            guard let data = planeData(index) else { return nil }
            let stride = stride(ofPlane: index)
            planes.append(PlaneMemory(firstRow: UnsafeRawPointer(data + firstRow * stride),
                                      bytesPerRow: stride * rowStep))
        }
        return planes
    }

    /// Copies the planes into `destination` laid out as `format.packedPlanes` (one memcpy per row).
    public func copyPlanes(into destination: UnsafeMutableRawBufferPointer) {
        copyPlanes(into: destination, as: format, firstRow: 0, rowStep: 1)
    }

    /// Copies rows firstRow, firstRow + rowStep, ... of each plane, as `layout` (this frame's format, or its
    /// field's) packs them.
    private func copyPlanes(into destination: UnsafeMutableRawBufferPointer, as layout: FrameFormat, firstRow: Int,
                            rowStep: Int) {
        precondition(destination.count >= layout.byteCount, "destination smaller than the frame")
        guard let sources = planeRows(firstRow: firstRow, rowStep: rowStep) else { return }
        for (plane, source) in zip(layout.packedPlanes, sources) {
            let rowBytes = min(plane.bytesPerRow, abs(source.bytesPerRow))
            for row in 0..<plane.height {
                let target = destination.baseAddress! + plane.byteOffset + row * plane.bytesPerRow
                target.copyMemory(from: source.firstRow + row * source.bytesPerRow, byteCount: rowBytes)
            }
        }
    }

    /// The luma plane's samples (8- or 16-bit per `format.bytesPerSample`), row stride in bytes.
    public func withLumaPlane<Result>(_ body: (UnsafeRawPointer, _ bytesPerRow: Int) throws -> Result) rethrows -> Result {
        try withPlane(0, body)
    }

    /// Plane `index`'s samples, as `withLumaPlane` gives the first: of an RGB frame, planar G, B, R.
    func withPlane<Result>(_ index: Int, _ body: (UnsafeRawPointer, _ bytesPerRow: Int) throws -> Result) rethrows -> Result {
        try body(UnsafeRawPointer(planeData(index)!), stride(ofPlane: index))
    }

    private func stride(ofPlane index: Int) -> Int {
        withUnsafePointer(to: pointer.pointee.linesize) { tuple in
            tuple.withMemoryRebound(to: Int32.self, capacity: 8) { Int($0[index]) }
        }
    }

    private func planeData(_ index: Int) -> UnsafeMutablePointer<UInt8>? {
        withUnsafePointer(to: pointer.pointee.data) { tuple in
            tuple.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { $0[index] }
        }
    }
}
