import Dispatch
import Foundation
import FrameFarmCore
import FrameFarmGPU
import FrameFarmMedia

/// Runs independent per-input work on all cores and returns the results in input order.
public enum ParallelBatch {
    /// Inputs not yet started when `BatchCancellation` is requested get `notStarted(input)` instead of `body`.
    /// `startOrder` (indices of `inputs`) is the order they start in; the default is input order.
    public static func map<Input: Sendable, Output: Sendable>(
        _ inputs: [Input], width: Int = Concurrent.cores, startOrder: [Int]? = nil,
        notStarted: (@Sendable (Input) -> Output)? = nil, _ body: @Sendable (Input) -> Output
    ) -> [Output] {
        Concurrent.map(count: inputs.count, width: width, startOrder: startOrder) { index in
            if let notStarted, BatchCancellation.isStopRequested { return notStarted(inputs[index]) }
            return body(inputs[index])
        }
    }
}

/// One image to encode, read in place from a drawn canvas: `width` x `height` pixels in rows `bytesPerRow` apart.
struct EncodeRequest: Sendable {
    let width: Int, height: Int, bytesPerRow: Int
    let format: ImageFormat, quality: Int
    /// Calls its argument with the image's bytes from its first pixel on; they must not escape it.
    let withPixels: @Sendable (_ body: (UnsafeRawBufferPointer) throws -> Data) throws -> Data
}

extension EncodeRequest {
    /// `rect` of a sprite-sheet canvas.
    init(_ rect: PixelRect, of canvas: PersistentCanvas, format: ImageFormat, quality: Int) {
        let canvasWidth = canvas.size.width
        self.init(width: rect.width, height: rect.height, bytesPerRow: canvasWidth * 4, format: format,
                  quality: quality) { body in
            try canvas.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[((rect.y * canvasWidth + rect.x) * 4)...])) }
        }
    }

    /// Canvas `index` of a rendered batch, whole.
    init(canvas index: Int, of rendered: RenderedCanvases, format: ImageFormat, quality: Int) {
        let size = rendered.size(of: index)
        self.init(width: size.width, height: size.height, bytesPerRow: size.width * 4, format: format,
                  quality: quality) { body in try rendered.withUnsafeBytes(canvas: index, body) }
    }

    /// A canvas shrunk to `size` by area averaging (a preview's review copy), as a JPEG: shrunk where it is encoded,
    /// on the encoding's core.
    init(shrinking index: Int, of rendered: RenderedCanvases, to size: PixelSize, quality: Int) {
        self.init(width: size.width, height: size.height, bytesPerRow: size.width * 4, format: .jpeg,
                  quality: quality) { body in
            let shrunk = rendered.withUnsafeBytes(canvas: index) {
                AreaAverage.shrink($0, from: rendered.size(of: index), to: size)
            }
            return try shrunk.withUnsafeBytes(body)
        }
    }
}

extension ParallelBatch {
    /// The fewest pixels a strip is cut to: a few milliseconds of encoding, against microseconds to join.
    static let minimumStripPixels = 1 << 19

    /// Encodes `images` over the cores, each piece with an encoder of `encoders` taken for its encoding, and
    /// returns their bytes in order, or rethrows the first error. Each JPEG or PNG larger than two strips is cut
    /// into as many strips as there are encoders (`JPEGStrips`, `PNGStrips`), so that one large image (a 640-px
    /// sprite sheet, a full-size poster, a 5K preview render) is not one thread's work while the others wait;
    /// the largest pieces start first. Encodings that share a pool and run at once together encode no more
    /// pieces at a time than it has encoders.
    static func encode(_ images: [EncodeRequest], with encoders: EncoderPool) throws -> [Data] {
        /// Rows `rows` of image `image`: the whole image, or one of its strips.
        struct Piece { var image: Int; var rows: Range<Int> }
        for image in images { try ImageEncoder.checkSize(width: image.width, height: image.height, format: image.format) }
        let stripRows = images.map { rowsPerStrip(of: $0, encoders: encoders) }
        var pieces: [Piece] = []
        for (index, (image, rows)) in zip(images, stripRows).enumerated() {
            for first in stride(from: 0, to: image.height, by: rows ?? image.height) {
                pieces.append(Piece(image: index, rows: first..<min(first + (rows ?? image.height), image.height)))
            }
        }
        let ordered = pieces.sorted { $0.rows.count * images[$0.image].width > $1.rows.count * images[$1.image].width }
        let encoded = Locked([Data?](repeating: nil, count: ordered.count))
        try Concurrent.forEach(count: ordered.count, width: encoders.count) { index in
            let piece = ordered[index], image = images[piece.image]
            let whole = stripRows[piece.image] == nil
            let data = try encoders.withEncoder { encoder in
                try image.withPixels { pixels in
                    whole ? try encoder.encode(pixels, width: image.width, height: image.height, bytesPerRow: image.bytesPerRow,
                                               format: image.format, quality: image.quality)
                          : try encoder.encodeStrip(pixels, width: image.width, height: image.height,
                                                    bytesPerRow: image.bytesPerRow, rows: piece.rows,
                                                    format: image.format, quality: image.quality)
                }
            }
            encoded.withLock { $0[index] = data }
        }
        var strips = [[(firstRow: Int, data: Data)]](repeating: [], count: images.count)
        for (piece, data) in zip(ordered, encoded.withLock { $0 }) { strips[piece.image].append((piece.rows.lowerBound, data!)) }
        return try images.indices.map { index in
            let parts = strips[index].sorted { $0.firstRow < $1.firstRow }.map(\.data), image = images[index]
            guard let rows = stripRows[index] else { return parts[0] }
            return image.format == .png
                ? try PNGStrips.join(parts, width: image.width, height: image.height, rowsPerStrip: rows)
                : try JPEGStrips.join(parts, width: image.width, height: image.height, rowsPerStrip: rows)
        }
    }

    /// Rows per strip `image` is cut into, or nil to encode it whole: WebP, and PNG by the reference deflater,
    /// have no strips.
    private static func rowsPerStrip(of image: EncodeRequest, encoders: EncoderPool) -> Int? {
        switch image.format {
        case .jpeg:
            JPEGStrips.rowsPerStrip(width: image.width, height: image.height, count: encoders.count,
                                    minimumPixels: minimumStripPixels)
        case .png where encoders.pngCompressor == .framefarm:
            PNGStrips.rowsPerStrip(width: image.width, height: image.height, count: encoders.count,
                                   minimumPixels: minimumStripPixels)
        case .png, .webp:
            nil
        }
    }
}

/// Image encoders, one per core, lent out one image at a time. Kept across batches, they keep their scratch
/// memory; shared by encodings that overlap (a preview batch: its videos in flight and each one's consecutive
/// submissions), they bound how many images are encoded at once.
// Unchecked: its encoders own libjpeg-turbo and libdeflate handles; each is lent to one thread at a time, under a lock.
final class EncoderPool: @unchecked Sendable {
    let count: Int
    let pngCompressor: PNGCompressor
    private var idle: [ImageEncoder]
    private let lock = NSLock()
    private let available: DispatchSemaphore

    init(count: Int = ProcessInfo.processInfo.activeProcessorCount, pngCompressor: PNGCompressor = .framefarm) {
        self.count = max(1, count)
        self.pngCompressor = pngCompressor
        idle = (0..<self.count).map { _ in ImageEncoder(pngCompressor: pngCompressor) }
        available = DispatchSemaphore(value: self.count)
    }

    /// Sets aside in every idle encoder the scratch memory an image of `size` needs (see `ImageEncoder.reserve`);
    /// one lent out grows, if it must, when it next encodes.
    func reserve(_ size: PixelSize, format: ImageFormat) {
        lock.withLock { for encoder in idle { encoder.reserve(width: size.width, height: size.height, format: format) } }
    }

    /// Runs `body` with an encoder no one else holds, waiting for one if all are lent.
    func withEncoder<Result>(_ body: (ImageEncoder) throws -> Result) rethrows -> Result {
        available.wait()
        let encoder = lock.withLock { idle.removeLast() }
        defer {
            lock.withLock { idle.append(encoder) }
            available.signal()
        }
        return try body(encoder)
    }
}

/// Work started on a background thread, whose value or error `finish` (from any thread, any number of times)
/// waits for.
final class BackgroundWork<Value: Sendable>: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let outcome = Locked<Result<Value, any Error>?>(nil)
    private let body: Locked<(@Sendable () throws -> Value)?>

    init(_ body: @escaping @Sendable () throws -> Value) {
        self.body = Locked(body)
        DispatchQueue.global().async { self.run() }
    }

    /// Drops the body, and what it captured, before the waiters go on. Otherwise the last reference to a captured
    /// object could be released on this thread after `finish` returned: a GPUService released that way at exit
    /// unloaded the Vulkan driver while the main thread ran the process's exit handlers, and the process crashed.
    private func run() {
        let result = Result { () throws -> Value in
            let body = self.body.withLock { body in
                defer { body = nil }
                return body
            }
            return try body!()
        }
        outcome.withLock { $0 = result }
        done.signal()
    }

    @discardableResult
    func finish() throws -> Value {
        // A latch: each waiter passes the signal on to the next.
        done.wait()
        done.signal()
        return try outcome.withLock { $0! }.get()
    }

    /// Whether the work has ended with an error (does not wait).
    var hasFailed: Bool {
        outcome.withLock { outcome in
            guard case .failure = outcome else { return false }
            return true
        }
    }
}
