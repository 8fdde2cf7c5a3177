#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Pass 2: for each job and plane group, filters every needed image row to the destination width with the job's
// per-column kernels (from the filter table: per group of COLUMNS adjacent columns, a start quad, then per image
// quad one weight quad per column), into the float intermediate. Each invocation owns COLUMNS adjacent columns
// and ROWS rows, so every image quad it fetches serves COLUMNS columns and every weight quad serves ROWS x planes
// taps: on CPU drivers a fetch is a gather costing far more than the arithmetic it feeds.

layout(local_size_x_id = 0) in;
// Set by ResampleHorizontalPass.rowsPerInvocation, which also sizes the dispatch.
layout(constant_id = 1) const uint ROWS = 4u;

#include "shader_interface.glsl"

layout(binding = 4) uniform samplerBuffer planeQuads;  // the prefilter images, four floats to a texel
layout(std430, binding = 7) writeonly buffer Intermediate { vec4 intermediate[]; };  // four columns to a quad

// Must match FilterTable.groupSize (columns per table entry); four, so an invocation's row is one quad.
const uint COLUMNS = 4u;

// The rows of PLANES planes (a constant at each call, so the compiler drops the unused planes' code and keeps
// every accumulator in registers: on CPU drivers a dynamically indexed array lives in memory). Component c of a
// sum is column firstColumn + c.
void filterRows(const uint PLANES, PlaneGroupPass group, PrefilterImage image, uint stride, uint firstColumn,
                uint firstRow) {
    uint entry = group.horizontalTable / 4u + firstColumn / COLUMNS * (group.horizontalTaps * COLUMNS + 1u);
    uint startQuad = uploadWord(entry * 4u);
    int quadsPerRow = int(image.stride / 4u);
    int quadsPerPlane = quadsPerRow * int(image.height);
    int rowQuad[ROWS];
    [[unroll]] for (uint r = 0u; r < ROWS; ++r) {
        uint row = group.rowStart + min(firstRow + r, group.rowCount - 1u);
        rowQuad[r] = int(image.outputOffset / 4u + startQuad) + int(row) * quadsPerRow;
    }
    vec4 sums0[ROWS], sums1[ROWS], sums2[ROWS];
    [[unroll]] for (uint r = 0u; r < ROWS; ++r) sums0[r] = sums1[r] = sums2[r] = vec4(0.0);
    for (uint q = 0u; q < group.horizontalTaps; ++q) {
        int weightQuad = int(entry + 1u + q * COLUMNS);
        // Column c's four weights for this image quad; t * weights = the four columns' dot products with t.
        mat4 weights = mat4(texelFetch(uploadQuads, weightQuad), texelFetch(uploadQuads, weightQuad + 1),
                            texelFetch(uploadQuads, weightQuad + 2), texelFetch(uploadQuads, weightQuad + 3));
        [[unroll]] for (uint r = 0u; r < ROWS; ++r) {
            int quad = rowQuad[r] + int(q);
            sums0[r] += texelFetch(planeQuads, quad) * weights;
            if (PLANES > 1u) sums1[r] += texelFetch(planeQuads, quad + quadsPerPlane) * weights;
            if (PLANES > 2u) sums2[r] += texelFetch(planeQuads, quad + 2 * quadsPerPlane) * weights;
        }
    }
    uint planeStride = group.rowCount * stride / 4u;  // in quads
    uint target = (group.intermediateOffset + firstRow * stride + firstColumn) / 4u;
    [[unroll]] for (uint r = 0u; r < ROWS; ++r) {
        if (firstRow + r >= group.rowCount) break;
        uint rowTarget = target + r * stride / 4u;
        intermediate[rowTarget] = sums0[r];
        if (PLANES > 1u) intermediate[rowTarget + planeStride] = sums1[r];
        if (PLANES > 2u) intermediate[rowTarget + 2u * planeStride] = sums2[r];
    }
}

void main() {
    ResampleJob job = dispatchJob;
    PlaneGroupPass group = pass.group == 0u ? job.luma : job.chroma;
    uint firstColumn = gl_GlobalInvocationID.x * COLUMNS;
    uint firstRow = gl_WorkGroupID.y * ROWS;
    if (firstColumn >= job.width || firstRow >= group.rowCount) return;
    PrefilterImage image = dispatchImage;
    if (group.planeCount == 1u) filterRows(1u, group, image, job.intermediateStride, firstColumn, firstRow);
    else if (group.planeCount == 2u) filterRows(2u, group, image, job.intermediateStride, firstColumn, firstRow);
    else filterRows(3u, group, image, job.intermediateStride, firstColumn, firstRow);
}
