#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Pass 3: for each destination pixel of each job, filters the intermediate columns vertically (luma and chroma
// with their own kernels), converts Y'CbCr to R'G'B' with the source's 3x4 matrix (affine, so converting after
// filtering equals converting before, up to clamping), tone-maps HDR and converts wide-gamut colour to sRGB
// (transfer.glsl), and writes RGBA8 into the job's canvas rect. Each invocation does COLUMNS x ROWS pixels, so
// every intermediate quad it gathers serves ROWS rows and every weight quad (one per image row, a weight for
// each of the ROWS rows) serves COLUMNS x planes taps.

layout(local_size_x_id = 0, local_size_y_id = 1) in;
layout(constant_id = 2) const bool LINEAR_LIGHT = false;

#include "shader_interface.glsl"
#include "transfer.glsl"

layout(binding = 10) uniform samplerBuffer intermediateQuads;  // four floats to a texel
layout(std430, binding = 8) buffer CanvasPixels { uint canvasPixels[]; };

const uint COLUMNS = 4u;  // one intermediate quad
const uint ROWS = 4u;     // must match FilterTable.groupSize

// The group's PLANES planes (a constant at each call, so unused planes cost nothing) at columns x0 ..< x0 +
// COLUMNS of destination rows band * ROWS ..< + ROWS. Rows start on quads, so each tap of a plane is one texel.
void filterBand(const uint PLANES, PlaneGroupPass group, uint stride, uint x0, uint band, out vec4 plane0[ROWS],
                out vec4 plane1[ROWS], out vec4 plane2[ROWS]) {
    uint entry = group.verticalTable / 4u + band * (group.verticalTaps + 1u);
    uint start = uploadWord(entry * 4u);
    int quadsPerRow = int(stride / 4u);
    int planeQuads = int(group.rowCount) * quadsPerRow;
    int base = int((group.intermediateOffset + start * stride + x0) / 4u);
    [[unroll]] for (uint r = 0u; r < ROWS; ++r) plane0[r] = plane1[r] = plane2[r] = vec4(0.0);
    for (uint t = 0u; t < group.verticalTaps; ++t) {
        vec4 weights = texelFetch(uploadQuads, int(entry + 1u + t));  // image row start + t, for each row
        int quad = base + int(t) * quadsPerRow;
        vec4 texel0 = texelFetch(intermediateQuads, quad);
        [[unroll]] for (uint r = 0u; r < ROWS; ++r) plane0[r] += weights[r] * texel0;
        if (PLANES > 1u) {
            vec4 texel1 = texelFetch(intermediateQuads, quad + planeQuads);
            [[unroll]] for (uint r = 0u; r < ROWS; ++r) plane1[r] += weights[r] * texel1;
        }
        if (PLANES > 2u) {
            vec4 texel2 = texelFetch(intermediateQuads, quad + 2 * planeQuads);
            [[unroll]] for (uint r = 0u; r < ROWS; ++r) plane2[r] += weights[r] * texel2;
        }
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
    uint band = gl_GlobalInvocationID.y;
    if (x0 >= job.width || band * ROWS >= job.height) return;
    CanvasDescriptor canvas = dispatchCanvas;
    vec4 first[ROWS], second[ROWS], third[ROWS];
    vec4 cb[ROWS], cr[ROWS], unused[ROWS];
    if (LINEAR_LIGHT) {
        filterBand(3u, job.luma, job.intermediateStride, x0, band, first, second, third);
    } else {
        filterBand(1u, job.luma, job.intermediateStride, x0, band, first, unused, unused);
        if (job.chroma.planeCount == 2u) {
            filterBand(2u, job.chroma, job.intermediateStride, x0, band, cb, cr, unused);
        } else {
            [[unroll]] for (uint r = 0u; r < ROWS; ++r) cb[r] = cr[r] = vec4(0.0);
        }
    }
    SourceDescriptor source = dispatchSource;
    [[unroll]] for (uint r = 0u; r < ROWS; ++r) {
        uint y = band * ROWS + r;
        if (y >= job.height) break;
        [[unroll]] for (uint c = 0u; c < COLUMNS; ++c) {
            ivec2 target = ivec2(job.destinationX, job.destinationY)
                + displayPosition(job, ivec2(int(x0 + c), int(y)));
            if (x0 + c >= job.width || any(lessThan(target, ivec2(0))) || target.x >= int(canvas.width)
                || target.y >= int(canvas.height)) continue;
            vec3 rgb;
            if (LINEAR_LIGHT) {
                rgb = encodeOutput(vec3(first[r][c], second[r][c], third[r][c]), source);
            } else {
                vec4 ycc = vec4(first[r][c], cb[r][c], cr[r][c], 1.0);
                rgb = vec3(dot(ycc, source.matrix[0]), dot(ycc, source.matrix[1]), dot(ycc, source.matrix[2]));
                // SDR in BT.709 primaries is shown as encoded; anything else goes through light.
                if (CONVERTS_COLOR && source.convertsColor != 0u) {
                    rgb = encodeOutput(decodeTransfer(rgb, source.transfer), source);
                }
            }
            uvec3 bytes = uvec3(clamp(rgb, 0.0, 1.0) * 255.0 + 0.5);
            canvasPixels[uint(target.y) * canvas.width + uint(target.x)] =
                bytes.r | (bytes.g << 8) | (bytes.b << 16) | 0xFF000000u;
        }
    }
}
