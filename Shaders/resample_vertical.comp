#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Pass 3: for each destination pixel of each job, filters the intermediate columns vertically (luma and chroma
// with their own kernels), converts Y'CbCr to R'G'B' with the source's 3x4 matrix (affine, so converting after
// filtering equals converting before, up to clamping), tone-maps HDR and converts wide-gamut colour to sRGB
// (transfer.glsl), and writes RGBA8 into the job's canvas rect.

layout(local_size_x_id = 0, local_size_y_id = 1) in;
layout(constant_id = 2) const bool LINEAR_LIGHT = false;

#include "shader_interface.glsl"
#include "transfer.glsl"

layout(binding = 10) uniform samplerBuffer intermediateQuads;  // four floats to a texel
layout(std430, binding = 8) buffer CanvasPixels { uint canvasPixels[]; };

// Each invocation filters COLUMNS adjacent pixels of a row, so each weight it fetches serves COLUMNS x planes taps.
const uint COLUMNS = 4u;

// The group's PLANES planes (a constant at each call, so unused planes cost nothing) at columns x0 ..< x0 +
// COLUMNS of destination row y. Rows start on quads, so each tap of a plane is one four-float texel.
void filterColumns(const uint PLANES, PlaneGroupPass group, uint stride, uint x0, uint y, out vec4 plane0,
                   out vec4 plane1, out vec4 plane2) {
    uint entry = group.verticalTable + y * (group.verticalTaps + 1u);
    uint start = uploadWord(entry);
    int quadsPerRow = int(stride / 4u);
    int planeQuads = int(group.rowCount) * quadsPerRow;
    int base = int((group.intermediateOffset + start * stride + x0) / 4u);
    plane0 = vec4(0.0);
    plane1 = vec4(0.0);
    plane2 = vec4(0.0);
    for (uint t = 0u; t < group.verticalTaps; ++t) {
        float weight = uintBitsToFloat(uploadWord(entry + 1u + t));
        int quad = base + int(t) * quadsPerRow;
        plane0 += weight * texelFetch(intermediateQuads, quad);
        if (PLANES > 1u) plane1 += weight * texelFetch(intermediateQuads, quad + planeQuads);
        if (PLANES > 2u) plane2 += weight * texelFetch(intermediateQuads, quad + 2 * planeQuads);
    }
}

// Where pixel p of the job's coded-orientation result lands inside the destination: mirrored first, then turned
// clockwise by quarter turns (the display matrix's transform).
ivec2 displayPosition(ResampleJob job, ivec2 p) {
    ivec2 size = ivec2(int(job.width), int(job.height));
    if ((job.transform & 4u) != 0u) p.x = size.x - 1 - p.x;
    switch (job.transform & 3u) {
    case 1u: return ivec2(size.y - 1 - p.y, p.x);
    case 2u: return size - ivec2(1) - p;
    case 3u: return ivec2(p.y, size.x - 1 - p.x);
    default: return p;
    }
}

void main() {
    ResampleJob job = dispatchJob;
    uint x0 = gl_GlobalInvocationID.x * COLUMNS;
    uint y = gl_GlobalInvocationID.y;
    if (x0 >= job.width || y >= job.height) return;
    CanvasDescriptor canvas = dispatchCanvas;
    vec4 first, second, third;
    vec4 cb = vec4(0.0), cr = vec4(0.0);
    if (LINEAR_LIGHT) {
        filterColumns(3u, job.luma, job.intermediateStride, x0, y, first, second, third);
    } else {
        vec4 unused;
        filterColumns(1u, job.luma, job.intermediateStride, x0, y, first, unused, unused);
        if (job.chroma.planeCount == 2u) filterColumns(2u, job.chroma, job.intermediateStride, x0, y, cb, cr, unused);
    }
    SourceDescriptor source = dispatchSource;
    [[unroll]] for (uint c = 0u; c < COLUMNS; ++c) {
        ivec2 target = ivec2(job.destinationX, job.destinationY) + displayPosition(job, ivec2(int(x0 + c), int(y)));
        if (x0 + c >= job.width || any(lessThan(target, ivec2(0))) || target.x >= int(canvas.width)
            || target.y >= int(canvas.height)) continue;
        vec3 rgb;
        if (LINEAR_LIGHT) {
            rgb = encodeOutput(vec3(first[c], second[c], third[c]), source);
        } else {
            vec4 ycc = vec4(first[c], cb[c], cr[c], 1.0);
            rgb = vec3(dot(ycc, source.matrix[0]), dot(ycc, source.matrix[1]), dot(ycc, source.matrix[2]));
            // SDR in BT.709 primaries is shown as encoded; anything else goes through light.
            if (CONVERTS_COLOR && source.convertsColor != 0u) rgb = encodeOutput(decodeTransfer(rgb, source.transfer), source);
        }
        uvec3 bytes = uvec3(clamp(rgb, 0.0, 1.0) * 255.0 + 0.5);
        canvasPixels[uint(target.y) * canvas.width + uint(target.x)] =
            bytes.r | (bytes.g << 8) | (bytes.b << 16) | 0xFF000000u;
    }
}
