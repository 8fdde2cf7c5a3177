#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Pass 2: for each job and plane group, filters every needed image row to the destination width with the job's
// per-column kernel (a start quad + normalized weights in quads from the filter table), into the float
// intermediate. Each invocation owns one destination column and ROWS rows so every weight quad it loads serves
// ROWS x planes taps; image rows start on quads, so four pixels are one texel fetch.

layout(local_size_x_id = 0) in;
// Set by ResampleHorizontalPass.rowsPerInvocation, which also sizes the dispatch.
layout(constant_id = 1) const uint ROWS = 8u;

#include "shader_interface.glsl"

layout(binding = 4) uniform samplerBuffer planeQuads;  // the prefilter images, four floats to a texel
layout(std430, binding = 7) writeonly buffer Intermediate { float intermediate[]; };

// The rows of PLANES planes (a constant at each call, so the compiler drops the unused planes' code and keeps
// every accumulator in registers: on CPU drivers a dynamically indexed array lives in memory).
void filterRows(const uint PLANES, PlaneGroupPass group, PrefilterImage image, uint stride, uint column,
                uint firstRow) {
    uint entry = group.horizontalTable / 4u + column * (group.horizontalTaps + 1u);
    uint startQuad = uploadWord(entry * 4u);
    int quadsPerRow = int(image.stride / 4u);
    int quadsPerPlane = quadsPerRow * int(image.height);
    int rowQuad[ROWS];
    [[unroll]] for (uint r = 0u; r < ROWS; ++r) {
        uint row = group.rowStart + min(firstRow + r, group.rowCount - 1u);
        rowQuad[r] = int(image.outputOffset / 4u + startQuad) + int(row) * quadsPerRow;
    }
    vec3 sums[ROWS];
    [[unroll]] for (uint r = 0u; r < ROWS; ++r) sums[r] = vec3(0.0);
    for (uint q = 0u; q < group.horizontalTaps; ++q) {
        vec4 weights = texelFetch(uploadQuads, int(entry + 1u + q));
        [[unroll]] for (uint r = 0u; r < ROWS; ++r) {
            int quad = rowQuad[r] + int(q);
            sums[r].x += dot(weights, texelFetch(planeQuads, quad));
            if (PLANES > 1u) sums[r].y += dot(weights, texelFetch(planeQuads, quad + quadsPerPlane));
            if (PLANES > 2u) sums[r].z += dot(weights, texelFetch(planeQuads, quad + 2 * quadsPerPlane));
        }
    }
    uint planeFloats = group.rowCount * stride;
    uint target = group.intermediateOffset + firstRow * stride + column;
    [[unroll]] for (uint r = 0u; r < ROWS; ++r) {
        if (firstRow + r >= group.rowCount) break;
        intermediate[target + r * stride] = sums[r].x;
        if (PLANES > 1u) intermediate[target + planeFloats + r * stride] = sums[r].y;
        if (PLANES > 2u) intermediate[target + 2u * planeFloats + r * stride] = sums[r].z;
    }
}

void main() {
    ResampleJob job = dispatchJob;
    PlaneGroupPass group = pass.group == 0u ? job.luma : job.chroma;
    uint column = gl_GlobalInvocationID.x;
    uint firstRow = gl_WorkGroupID.y * ROWS;
    if (column >= job.width || firstRow >= group.rowCount) return;
    PrefilterImage image = dispatchImage;
    if (group.planeCount == 1u) filterRows(1u, group, image, job.intermediateStride, column, firstRow);
    else if (group.planeCount == 2u) filterRows(2u, group, image, job.intermediateStride, column, firstRow);
    else filterRows(3u, group, image, job.intermediateStride, column, firstRow);
}
