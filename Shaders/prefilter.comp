#version 450
#extension GL_GOOGLE_include_directive : require
// Pass 1: reads each source plane once, as stored, and writes float images for the resampling passes: a box
// average over shrinkX x shrinkY samples (the exact integer pre-shrink of libvips' shrink-then-reduce, which
// leaves the windowed filter a reduction of 3x or less), or, with shrink 1, the samples themselves.
// In linear-light mode the luma group becomes linear R, G, B at luma resolution (chroma bilinearly upsampled).

layout(local_size_x_id = 0, local_size_y_id = 1) in;
layout(constant_id = 2) const bool LINEAR_LIGHT = false;
// Each invocation sums a pair of horizontally adjacent boxes and fetches each of their words once, which fetches
// fewer words than one box at a time (chroma boxes of 3 bytes span 2 words alone and 2 as a pair) and halves the
// invocations; linear light sums one box, sample by sample. PrefilterPass.boxesPerInvocation says the same.
const bool PAIRED = !LINEAR_LIGHT;

#include "shader_interface.glsl"
#include "sample_fetch.glsl"
#include "transfer.glsl"

layout(std430, binding = 6) writeonly buffer Planes { float planes[]; };

// Linear R, G, B of luma pixel (x, y): Y there, Cb and Cr bilinear at the sited chroma position.
vec3 linearRGB(SourceDescriptor source, uint frameByte, uint x, uint y) {
    float luma = fetchElement(frameByte + source.lumaOffset + y * source.lumaStride, x, source.bytesPerSample, 1u, 0u);
    vec2 chroma = vec2(0.0);
    if (source.planeLayout != 2u) {
        vec2 position = (vec2(x, y) + 0.5) * vec2(source.chromaScaleX, source.chromaScaleY)
            + vec2(source.chromaOffsetX, source.chromaOffsetY) - 0.5;
        vec2 limit = vec2(source.chromaWidth - 1u, source.chromaHeight - 1u);
        position = clamp(position, vec2(0.0), limit);
        uvec2 first = uvec2(floor(position));
        uvec2 second = uvec2(min(vec2(first + 1u), limit));
        vec2 fraction = position - vec2(first);
        uint components = source.planeLayout == 1u ? 2u : 1u;
        for (uint c = 0u; c < 2u; ++c) {
            uint plane = frameByte + (c == 0u || components == 2u ? source.cbOffset : source.crOffset);
            uint component = components == 2u ? c : 0u;
            uint row0 = plane + first.y * source.chromaStride, row1 = plane + second.y * source.chromaStride;
            float top = mix(fetchElement(row0, first.x, source.bytesPerSample, components, component),
                            fetchElement(row0, second.x, source.bytesPerSample, components, component), fraction.x);
            float bottom = mix(fetchElement(row1, first.x, source.bytesPerSample, components, component),
                               fetchElement(row1, second.x, source.bytesPerSample, components, component), fraction.x);
            chroma[c] = mix(top, bottom, fraction.y);
        }
    }
    vec4 ycc = vec4(luma, chroma, 1.0);
    vec3 encoded = vec3(dot(ycc, source.matrix[0]), dot(ycc, source.matrix[1]), dot(ycc, source.matrix[2]));
    return decodeTransfer(encoded, source.transfer);
}

// Stores a box's average: `sum` over its samples inside the crop, plus `missing` columns repeating the crop's
// last one (the direct filter's clamped taps).
void writeBox(PrefilterImage image, uint outputIndex, uint planeSize, uvec2 sum, uint missing, uint firstPlane,
              uint secondPlane, uint stride, uint y0, uint bytes, uint components, uint secondComponent, bool chroma,
              float normalization) {
    vec2 total = vec2(sum);
    if (missing > 0u) {
        uint last = uint(image.lastX);
        for (uint row = 0u; row < image.shrinkY; ++row) {
            uint y = min(y0 + row, uint(image.lastY));
            total.x += float(missing) * fetchElement(firstPlane + y * stride, last, bytes, components, 0u);
            if (chroma) {
                total.y += float(missing) * fetchElement(secondPlane + y * stride, last, bytes, components,
                                                         secondComponent);
            }
        }
    }
    planes[outputIndex] = total.x * normalization;
    if (chroma) planes[outputIndex + planeSize] = total.y * normalization;
}

// A row's padding to a quad: the horizontal pass reads it with zero weights, and 0 * NaN is NaN.
void writePadding(uint outputIndex, uint planeSize, uint planeCount) {
    for (uint p = 0u; p < planeCount; ++p) planes[outputIndex + p * planeSize] = 0.0;
}

// Plane 0 of a group adds to .x; for planar chroma, plane 1 (Cr) adds to .y.
uvec2 planeSum(uvec2 wordSum, uint plane) { return plane == 0u ? wordSum : uvec2(0u, wordSum.x); }

void main() {
    PrefilterImage image = dispatchImage;
    const uint BOXES = PAIRED ? 2u : 1u;
    uvec2 box = uvec2(gl_GlobalInvocationID.x * BOXES, gl_GlobalInvocationID.y);
    if (box.x >= image.stride || box.y >= image.height) return;
    uint planeSize = image.stride * image.height;
    uint outputIndex = image.outputOffset + box.y * image.stride + box.x;
    // Pairs start on even boxes and rows are padded to quads, so a pair's second box is in the row: a box when
    // it is inside the image's width, else padding.
    bool hasB = PAIRED && box.x + 1u < image.width;
    if (box.x >= image.width) {
        writePadding(outputIndex, planeSize, image.planeCount);
        if (PAIRED) writePadding(outputIndex + 1u, planeSize, image.planeCount);
        return;
    }
    SourceDescriptor source = dispatchSource;

    uint x0 = uint(image.originX) + box.x * image.shrinkX;
    uint y0 = uint(image.originY) + box.y * image.shrinkY;
    float normalization = 1.0 / float(image.shrinkX * image.shrinkY);

    if (LINEAR_LIGHT) {
        vec3 sum = vec3(0.0);
        for (uint j = 0u; j < image.shrinkY; ++j) {
            uint y = min(y0 + j, uint(image.lastY));
            for (uint i = 0u; i < image.shrinkX; ++i) {
                sum += linearRGB(source, source.byteOffset, min(x0 + i, uint(image.lastX)), y);
            }
        }
        for (uint p = 0u; p < 3u; ++p) planes[outputIndex + p * planeSize] = sum[p] * normalization;
        return;
    }

    // Samples past the crop's last pixel repeat it, as the direct filter's clamped taps do.
    uint frameByte = source.byteOffset;
    uint bytes = source.bytesPerSample;
    bool chroma = image.planeGroup == 1u;
    bool interleaved = chroma && source.planeLayout == 1u;
    uint components = interleaved ? 2u : 1u;
    uint stride = chroma ? source.chromaStride : source.lumaStride;
    uint firstPlane = frameByte + (chroma ? source.cbOffset : source.lumaOffset);
    uint secondPlane = interleaved ? firstPlane : frameByte + source.crOffset;
    uint secondComponent = interleaved ? 1u : 0u;
    // One flat loop over (row, plane, word): every fetched word serves all of its samples; words outside a box
    // are masked off in sumWord. Integer sums are exact (shrink is capped so they cannot overflow). Fetching four
    // words at once (an RGBA32UI view) halves the fetches but masks twice the words: 20% slower on lavapipe.
    // Box B (with PAIRED) starts where box A ends.
    uint lastX = uint(image.lastX);
    uint insideA = min(image.shrinkX, lastX + 1u - x0);
    uint insideB = hasB ? min(image.shrinkX, lastX + 1u - (x0 + image.shrinkX)) : 0u;
    uint elementBytes = bytes * components;
    uint words = image.wordsPerRow;
    uint planeCount = chroma && !interleaved ? 2u : 1u;
    uint firstA = x0 * elementBytes, endA = firstA + insideA * elementBytes;
    uint firstB = firstA + image.shrinkX * elementBytes, endB = firstB + insideB * elementBytes;
    uvec2 sumA = uvec2(0u), sumB = uvec2(0u);
    uint j = 0u, w = 0u, p = 0u;
    for (uint n = 0u; n < image.shrinkY * words * planeCount; ++n) {
        uint rowByte = (p == 0u ? firstPlane : secondPlane) + min(y0 + j, uint(image.lastY)) * stride;
        uint wordByte = (((rowByte + firstA) >> 2) + w) << 2;
        uint word = uploadWord(wordByte >> 2);
        sumA += planeSum(sumWord(word, wordByte, rowByte + firstA, rowByte + endA, bytes, components), p);
        if (PAIRED) sumB += planeSum(sumWord(word, wordByte, rowByte + firstB, rowByte + endB, bytes, components), p);
        ++w;
        if (w == words) { w = 0u; ++p; }
        if (p == planeCount) { p = 0u; ++j; }
    }
    writeBox(image, outputIndex, planeSize, sumA, image.shrinkX - insideA, firstPlane, secondPlane, stride, y0,
             bytes, components, secondComponent, chroma, normalization);
    if (hasB) {
        writeBox(image, outputIndex + 1u, planeSize, sumB, image.shrinkX - insideB, firstPlane, secondPlane, stride,
                 y0, bytes, components, secondComponent, chroma, normalization);
    } else if (PAIRED) {
        writePadding(outputIndex + 1u, planeSize, image.planeCount);
    }
}
