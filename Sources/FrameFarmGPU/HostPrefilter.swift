/// The prefilter pass (Shaders/prefilter.comp) run by the host instead of the device, for Vulkan devices that are
/// the CPU (lavapipe). It reads the same uploaded bytes and writes the same plane images: box averages of
/// shrinkX x shrinkY samples, samples past the crop's last row or column repeating it, rows padded with zeros.
///
/// Why: a CPU driver runs the shader eight invocations at a time and turns every texel fetch into a gather, about
/// 60 cycles each; the prefilter, which reads every byte of the frame, was three quarters of a 1080p -> 160 px
/// render. Here each row is read once, front to back, in loops the compiler vectorises. Linear light (colour
/// conversion per sample) stays on the device.
enum HostPrefilter {
    /// Writes `image` of `source` (whose bytes start at `frame`) into `planes`, the slot's plane-image buffer.
    static func run(_ image: PrefilterImage, source: SourceDescriptor, frame: UnsafeRawPointer,
                    planes: UnsafeMutablePointer<Float>) {
        let chroma = image.planeGroup == 1
        let interleaved = chroma && source.planeLayout == 1
        let rowBytes = Int(chroma ? source.chromaStride : source.lumaStride)
        let first = Int(chroma ? source.cbOffset : source.lumaOffset)
        // Each output plane: where its samples start and their step in samples (2 for interleaved Cb Cr).
        let inputs: [(offset: Int, component: Int)] = !chroma ? [(first, 0)]
            : interleaved ? [(first, 0), (first, 1)] : [(first, 0), (Int(source.crOffset), 0)]
        let planeSize = Int(image.stride * image.height)
        for (index, input) in inputs.enumerated() {
            let output = planes + Int(image.outputOffset) + index * planeSize
            let plane = frame + input.offset
            let step = interleaved ? 2 : 1
            // 8-bit columns of at most 64 rows fit 16-bit sums, whose vectors hold twice the lanes.
            if source.bytesPerSample == 2 {
                boxes(image, plane: plane.assumingMemoryBound(to: UInt16.self), rowSamples: rowBytes / 2,
                      step: step, component: input.component, sum: UInt32.self, into: output)
            } else {
                boxes(image, plane: plane.assumingMemoryBound(to: UInt8.self), rowSamples: rowBytes,
                      step: step, component: input.component, sum: UInt16.self, into: output)
            }
        }
    }

    /// One plane's boxes, row of boxes by row of boxes: the box rows' samples are summed column by column, then
    /// each box adds its shrinkX columns. Sums are exact integers (the shrink is capped so that a column fits
    /// `Sum` and a box 32 bits).
    private static func boxes<Sample: FixedWidthInteger & UnsignedInteger, Sum: FixedWidthInteger & UnsignedInteger>(
        _ image: PrefilterImage, plane: UnsafePointer<Sample>, rowSamples: Int, step: Int, component: Int,
        sum _: Sum.Type, into output: UnsafeMutablePointer<Float>
    ) {
        let shrinkX = Int(image.shrinkX), shrinkY = Int(image.shrinkY)
        let width = Int(image.width), height = Int(image.height), stride = Int(image.stride)
        let originX = Int(image.originX), originY = Int(image.originY)
        let lastX = Int(image.lastX), lastY = Int(image.lastY)
        let columns = width * shrinkX
        // Columns past the crop's last one repeat it.
        let inside = min(columns, lastX + 1 - originX)
        let normalization = 1 / Float(shrinkX * shrinkY)
        let sums = UnsafeMutablePointer<Sum>.allocate(capacity: columns)
        let totals = UnsafeMutablePointer<Int32>.allocate(capacity: width)
        defer {
            sums.deallocate()
            totals.deallocate()
        }
        for boxRow in 0..<height {
            sums.update(repeating: 0, count: columns)
            for j in 0..<shrinkY {
                let y = min(originY + boxRow * shrinkY + j, lastY)
                let row = plane + y * rowSamples + originX * step + component
                if step == 1 {
                    for k in 0..<inside { sums[k] &+= Sum(truncatingIfNeeded: row[k]) }
                } else {
                    for k in 0..<inside { sums[k] &+= Sum(truncatingIfNeeded: row[k * step]) }
                }
                if inside < columns {
                    let last = Sum(truncatingIfNeeded: row[(inside - 1) * step])
                    for k in inside..<columns { sums[k] &+= last }
                }
            }
            // Column i of every box, then the next: loops over boxes vectorise, a loop over one box's few columns
            // does not (it took two thirds of the time).
            totals.update(repeating: 0, count: width)
            for i in 0..<shrinkX {
                for box in 0..<width { totals[box] &+= Int32(truncatingIfNeeded: sums[box * shrinkX + i]) }
            }
            let line = output + boxRow * stride
            for box in 0..<width { line[box] = Float(totals[box]) * normalization }
            // A row's padding to a quad: the horizontal pass reads it with zero weights, and 0 * NaN is NaN.
            for box in width..<stride { line[box] = 0 }
        }
    }
}
