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
    vec3 encoded = vec3(dot(ycc, vec4(source.matrix[0], source.matrix[1], source.matrix[2], source.matrix[3])),
                        dot(ycc, vec4(source.matrix[4], source.matrix[5], source.matrix[6], source.matrix[7])),
                        dot(ycc, vec4(source.matrix[8], source.matrix[9], source.matrix[10], source.matrix[11])));
    return decodeTransfer(clamp(encoded, 0.0, 1.0));
}

void main() {
    WorkItem work;
    uvec2 tile;
    if (!findTile(work, tile)) return;
    PrefilterImage image = images[work.item];
    uvec2 box = tile * gl_WorkGroupSize.xy + gl_LocalInvocationID.xy;
    if (box.x >= image.width || box.y >= image.height) return;
    SourceDescriptor source = sources[image.sourceIndex];

    uint x0 = uint(image.originX) + box.x * image.shrinkX;
    uint y0 = uint(image.originY) + box.y * image.shrinkY;
    uint x1 = min(x0 + image.shrinkX, uint(image.lastX) + 1u);
    uint missingColumns = x0 + image.shrinkX - x1;
    uint planeSize = image.width * image.height;
    uint outputIndex = image.outputOffset + box.y * image.width + box.x;
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

    uint frameByte = source.byteOffset;
    bool chroma = image.planeGroup == 1u;
    bool interleaved = chroma && source.planeLayout == 1u;
    uint components = interleaved ? 2u : 1u;
    uint stride = chroma ? source.chromaStride : source.lumaStride;
    uint firstPlane = frameByte + (chroma ? source.cbOffset : source.lumaOffset);
    uint secondPlane = frameByte + source.crOffset;
    vec2 sum = vec2(0.0);
    for (uint j = 0u; j < image.shrinkY; ++j) {
        uint y = min(y0 + j, uint(image.lastY));
        uint row = firstPlane + y * stride;
        vec2 rowSum = sumRow(row, x0, x1, source.bytesPerSample, components);
        if (chroma && !interleaved) rowSum.y = sumRow(secondPlane + y * stride, x0, x1, source.bytesPerSample, 1u).x;
        if (missingColumns > 0u) {
            uint last = uint(image.lastX);
            vec2 edge = vec2(fetchElement(row, last, source.bytesPerSample, components, 0u), 0.0);
            if (interleaved) edge.y = fetchElement(row, last, source.bytesPerSample, 2u, 1u);
            else if (chroma) edge.y = fetchElement(secondPlane + y * stride, last, source.bytesPerSample, 1u, 0u);
            rowSum += edge * float(missingColumns);
        }
        sum += rowSum;
    }
    planes[outputIndex] = sum.x * normalization;
    if (chroma) planes[outputIndex + planeSize] = sum.y * normalization;
}
