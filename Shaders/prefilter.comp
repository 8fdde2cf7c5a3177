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

// The bytes of a word (at byteAddress wordByte) that fall in [first, end), as a mask.
uint byteMask(uint wordByte, uint first, uint end) {
    uint low = uint(clamp(int(first) - int(wordByte), 0, 4)), high = uint(clamp(int(end) - int(wordByte), 0, 4));
    return (high == 4u ? 0xFFFFFFFFu : (1u << (high * 8u)) - 1u) & ~(low == 4u ? 0xFFFFFFFFu : (1u << (low * 8u)) - 1u);
}

// Packed lane sums to 32-bit sums: 8-bit samples sit in two 16-bit lanes of each uint, 16-bit ones in one.
uvec2 unpackLanes(uvec2 packed, uint bytes) { return bytes == 1u ? (packed & 0xFFFFu) + (packed >> 16) : packed; }

// A box's sums from its even and odd samples per plane (x, y: first plane; z, w: second): one component per
// element sums them all, plane 0 to .x and plane 1 (planar Cr) to .y; two (Cb Cr interleaved) are Cb even, Cr odd.
uvec2 planeSums(uvec4 evenOdd, uint components) {
    return components == 2u ? evenOdd.xy : uvec2(evenOdd.x + evenOdd.y, evenOdd.z + evenOdd.w);
}

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
    // Every fetched word serves all of its samples; bytes outside a box are masked off. Rows start on 4-byte
    // boundaries, so a word's masks are the same in every row: the loop runs down the rows word by word and works
    // them out once per word, not once per fetch (6-8% less prefilter time on lavapipe). Planes are the outermost
    // loop: a CPU driver runs both sides of a branch, so a "second plane?" test inside would fetch for luma too.
    // Fetching four words at once (an RGBA32UI view) halves the fetches but masks twice the words: 20% slower on
    // lavapipe when masks were per fetch. Box B (with PAIRED) starts where box A ends. Sums are exact integers
    // (shrink is capped so they cannot overflow).
    uint lastX = uint(image.lastX);
    uint insideA = min(image.shrinkX, lastX + 1u - x0);
    uint insideB = hasB ? min(image.shrinkX, lastX + 1u - (x0 + image.shrinkX)) : 0u;
    uint elementBytes = bytes * components;
    uint words = image.wordsPerRow;
    uint planeCount = chroma && !interleaved ? 2u : 1u;
    uint firstA = x0 * elementBytes, endA = firstA + insideA * elementBytes;  // bytes from the row's start
    uint firstB = firstA + image.shrinkX * elementBytes, endB = firstB + insideB * elementBytes;
    // Even and odd samples (bytes, or 16-bit words) of a masked word, added lane-wise: 8-bit samples into two
    // 16-bit lanes of one uint, which hold 257 words' worth before they must be unpacked into 32-bit sums.
    uint lanes = bytes == 1u ? 0x00FF00FFu : 0x0000FFFFu, oddShift = bytes * 8u;
    bool unpackEachWord = bytes == 1u && words * image.shrinkY > 257u;
    uvec4 totalA = uvec4(0u), totalB = uvec4(0u);  // even and odd samples of the first plane, then of the second
    for (uint p = 0u; p < planeCount; ++p) {
        uint rowWord = ((p == 0u ? firstPlane : secondPlane) >> 2) + (firstA >> 2);
        uvec2 packedA = uvec2(0u), packedB = uvec2(0u), planeA = uvec2(0u), planeB = uvec2(0u);
        for (uint w = 0u; w < words; ++w) {
            uint wordByte = (firstA & ~3u) + w * 4u;
            uint keepA = byteMask(wordByte, firstA, endA), keepB = PAIRED ? byteMask(wordByte, firstB, endB) : 0u;
            for (uint j = 0u; j < image.shrinkY; ++j) {
                uint word = uploadWord(rowWord + min(y0 + j, uint(image.lastY)) * (stride >> 2) + w);
                packedA += uvec2(word & keepA, (word & keepA) >> oddShift) & lanes;
                if (PAIRED) packedB += uvec2(word & keepB, (word & keepB) >> oddShift) & lanes;
            }
            if (unpackEachWord || w + 1u == words) {
                planeA += unpackLanes(packedA, bytes);
                planeB += unpackLanes(packedB, bytes);
                packedA = uvec2(0u);
                packedB = uvec2(0u);
            }
        }
        totalA = p == 0u ? uvec4(planeA, 0u, 0u) : uvec4(totalA.xy, planeA);
        totalB = p == 0u ? uvec4(planeB, 0u, 0u) : uvec4(totalB.xy, planeB);
    }
    uvec2 sumA = planeSums(totalA, components), sumB = planeSums(totalB, components);
    writeBox(image, outputIndex, planeSize, sumA, image.shrinkX - insideA, firstPlane, secondPlane, stride, y0,
             bytes, components, secondComponent, chroma, normalization);
    if (hasB) {
        writeBox(image, outputIndex + 1u, planeSize, sumB, image.shrinkX - insideB, firstPlane, secondPlane, stride,
                 y0, bytes, components, secondComponent, chroma, normalization);
    } else if (PAIRED) {
        writePadding(outputIndex + 1u, planeSize, image.planeCount);
    }
}
