#version 450
#extension GL_GOOGLE_include_directive : require
// Pass 2: for each job and plane group, filters every needed image row to the destination width with the job's
// per-column kernel (start index + normalized weights from the filter table), into the float intermediate.
// Each invocation owns one destination column and ROWS rows so every weight it loads serves ROWS x planes taps.

layout(local_size_x_id = 0) in;
const uint ROWS = 4u;

#include "shader_interface.glsl"

layout(std430, binding = 6) readonly buffer Planes { float planes[]; };
layout(std430, binding = 7) writeonly buffer Intermediate { float intermediate[]; };

void main() {
    WorkItem work;
    uvec2 tile;
    if (!findTile(work, tile)) return;
    ResampleJob job = jobs[work.item >> 1];
    PlaneGroupPass group = (work.item & 1u) == 0u ? job.luma : job.chroma;
    PrefilterImage image = images[group.imageIndex];
    uint column = tile.x * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    uint firstRow = tile.y * ROWS;
    if (column >= job.width || firstRow >= group.rowCount) return;

    uint entry = group.horizontalTable + column * (group.horizontalTaps + 1u);
    uint start = filterTable[entry];
    uint planeSize = image.width * image.height;
    uint rowBase[ROWS];
    for (uint r = 0u; r < ROWS; ++r) {
        uint row = group.rowStart + min(firstRow + r, group.rowCount - 1u);
        rowBase[r] = image.outputOffset + row * image.width + start;
    }
    vec3 sums[ROWS];
    for (uint r = 0u; r < ROWS; ++r) sums[r] = vec3(0.0);
    for (uint t = 0u; t < group.horizontalTaps; ++t) {
        float weight = uintBitsToFloat(filterTable[entry + 1u + t]);
        for (uint r = 0u; r < ROWS; ++r) {
            sums[r].x += weight * planes[rowBase[r] + t];
            if (group.planeCount > 1u) sums[r].y += weight * planes[rowBase[r] + planeSize + t];
            if (group.planeCount > 2u) sums[r].z += weight * planes[rowBase[r] + 2u * planeSize + t];
        }
    }
    for (uint r = 0u; r < ROWS && firstRow + r < group.rowCount; ++r) {
        for (uint p = 0u; p < group.planeCount; ++p) {
            intermediate[group.intermediateOffset + (p * group.rowCount + firstRow + r) * job.width + column] = sums[r][p];
        }
    }
}
