#version 450
#extension GL_GOOGLE_include_directive : require
// Pass 1: reads each source plane once, as stored, and writes float images for the resampling passes: a box
// average over shrinkX x shrinkY samples (the exact integer pre-shrink of libvips' shrink-then-reduce, which
// leaves the windowed filter a reduction of 3x or less), or, with shrink 1, the samples themselves.
// In linear-light mode the luma group becomes linear R, G, B at luma resolution (chroma bilinearly upsampled).

layout(local_size_x_id = 0, local_size_y_id = 1) in;
layout(constant_id = 2) const bool LINEAR_LIGHT = false;

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

void main() {
    PrefilterImage image = dispatchImage;
    uvec2 box = gl_GlobalInvocationID.xy;
    if (box.x >= image.stride || box.y >= image.height) return;
    uint planeSize = image.stride * image.height;
    uint outputIndex = image.outputOffset + box.y * image.stride + box.x;
    if (box.x >= image.width) {
        // The row's padding to a quad: the horizontal pass reads it with zero weights, and 0 * NaN is NaN.
        for (uint p = 0u; p < image.planeCount; ++p) planes[outputIndex + p * planeSize] = 0.0;
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
    // One flat loop over (row, plane, word): every fetched word serves all of its samples; words outside the
    // box are masked off in sumWord. Integer sums are exact (shrink is capped so they cannot overflow).
    uint inside = min(image.shrinkX, uint(image.lastX) + 1u - x0);
    uint missing = image.shrinkX - inside;
    uint elementBytes = bytes * components;
    uint words = image.wordsPerRow;
    uint planeCount = chroma && !interleaved ? 2u : 1u;
    uint rowFirst = x0 * elementBytes, rowEnd = rowFirst + inside * elementBytes;
    uvec2 sum = uvec2(0u);
    uint j = 0u, w = 0u, p = 0u;
    for (uint n = 0u; n < image.shrinkY * words * planeCount; ++n) {
        uint rowByte = (p == 0u ? firstPlane : secondPlane) + min(y0 + j, uint(image.lastY)) * stride;
        uint wordByte = (((rowByte + rowFirst) >> 2) + w) << 2;
        uvec2 wordSum = sumWord(uploadWord(wordByte >> 2), wordByte, rowByte + rowFirst, rowByte + rowEnd, bytes,
                                components);
        sum += p == 0u ? wordSum : uvec2(0u, wordSum.x);
        ++w;
        if (w == words) { w = 0u; ++p; }
        if (p == planeCount) { p = 0u; ++j; }
    }
    vec2 total = vec2(sum);
    if (missing > 0u) {
        uint last = uint(image.lastX);
        for (uint row = 0u; row < image.shrinkY; ++row) {
            uint y = min(y0 + row, uint(image.lastY));
            total.x += float(missing) * fetchElement(firstPlane + y * stride, last, bytes, components, 0u);
            if (chroma) total.y += float(missing) * fetchElement(secondPlane + y * stride, last, bytes, components, secondComponent);
        }
    }

    planes[outputIndex] = total.x * normalization;
    if (chroma) planes[outputIndex + planeSize] = total.y * normalization;
}
