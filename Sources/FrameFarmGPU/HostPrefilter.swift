import FrameFarmCore

/// The prefilter pass (Shaders/prefilter.comp) run by the host instead of the device, for Vulkan devices that are
/// the CPU (lavapipe). It writes the same plane images from the same samples: box averages of shrinkX x shrinkY
/// samples, samples past the crop's last row or column repeating it, rows padded with zeros. It reads the
/// decoded frame in place where the caller lends its planes (`SourceFrame.planes`), so the frame is never
/// copied into the upload buffer.
///
/// Why: a CPU driver runs the shader eight invocations at a time and turns every texel fetch into a gather, about
/// 60 cycles each; the prefilter, which reads every byte of the frame, was three quarters of a 1080p -> 160 px
/// render. Here each row is read once, front to back, in loops the compiler vectorises. Linear light (colour
/// conversion per sample) stays on the device.
enum HostPrefilter {
    /// Writes `image` of `source`, whose planes (in `FrameFormat.packedPlanes` order) are `frame`, into `planes`,
    /// the slot's plane-image buffer.
    static func run(_ image: PrefilterImage, source: SourceDescriptor, frame: [PlaneMemory],
                    planes: UnsafeMutablePointer<Float>) {
        let chroma = image.planeGroup == 1
        let interleaved = chroma && source.planeLayout == 1
        // Each output plane: its input plane and its component there (interleaved Cb Cr samples alternate, so
        // each steps by 2).
        let inputs: [(plane: PlaneMemory, component: Int)] = !chroma ? [(frame[0], 0)]
            : interleaved ? [(frame[1], 0), (frame[1], 1)] : [(frame[1], 0), (frame[2], 0)]
        let step = interleaved ? 2 : 1
        let planeSize = Int(image.stride * image.height)
        for (index, input) in inputs.enumerated() {
            let output = planes + Int(image.outputOffset) + index * planeSize
            let rowBytes = input.plane.bytesPerRow
            // 8-bit columns of at most 64 rows fit 16-bit sums, whose vectors hold twice the lanes.
            if source.bytesPerSample == 2 {
                boxes(image, plane: input.plane.firstRow.assumingMemoryBound(to: UInt16.self), rowSamples: rowBytes / 2,
                      step: step, component: input.component, sum: UInt32.self, into: output)
            } else {
                boxes(image, plane: input.plane.firstRow.assumingMemoryBound(to: UInt8.self), rowSamples: rowBytes,
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
        defer { sums.deallocate() }
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
            let line = output + boxRow * stride
            // Each box adds its columns. With the shrink a constant (the switch), the compiler unrolls a box and
            // vectorises across boxes; a loop over a variable count of columns per box took two thirds of the time.
            @inline(__always) func addColumns(_ count: Int) {
                for box in 0..<width {
                    var total: Int32 = 0
                    for i in 0..<count { total &+= Int32(truncatingIfNeeded: sums[box * count + i]) }
                    line[box] = Float(total) * normalization
                }
            }
            switch shrinkX {
            case 1: addColumns(1)
            case 2: addColumns(2)
            case 3: addColumns(3)
            case 4: addColumns(4)
            case 5: addColumns(5)
            case 6: addColumns(6)
            case 8: addColumns(8)
            default: addColumns(shrinkX)
            }
            // A row's padding to a quad: the horizontal pass reads it with zero weights, and 0 * NaN is NaN.
            for box in width..<stride { line[box] = 0 }
        }
    }
}
