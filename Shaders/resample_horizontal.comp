#version 450
#extension GL_GOOGLE_include_directive : require
// Pass 2: for each job and plane group, filters every needed image row to the destination width with the job's
// per-column kernel (start index + normalized weights from the filter table), into the float intermediate.
// Each invocation owns one destination column and ROWS rows so every weight it loads serves ROWS x planes taps.

layout(local_size_x_id = 0) in;
const uint ROWS = 8u;

#include "shader_interface.glsl"

layout(binding = 4) uniform samplerBuffer planes;
layout(std430, binding = 7) writeonly buffer Intermediate { float intermediate[]; };

void main() {
    ResampleJob job = dispatchJob;
    PlaneGroupPass group = pass.group == 0u ? job.luma : job.chroma;
    PrefilterImage image = dispatchImage;
    uint column = gl_GlobalInvocationID.x;
    uint firstRow = gl_WorkGroupID.y * ROWS;
    if (column >= job.width || firstRow >= group.rowCount) return;

    uint entry = group.horizontalTable + column * (group.horizontalTaps + 1u);
    uint start = uploadWord(entry);
    uint planeSize = image.width * image.height;
    uint rowBase[ROWS];
    for (uint r = 0u; r < ROWS; ++r) {
        uint row = group.rowStart + min(firstRow + r, group.rowCount - 1u);
        rowBase[r] = image.outputOffset + row * image.width + start;
    }
    vec3 sums[ROWS];
    for (uint r = 0u; r < ROWS; ++r) sums[r] = vec3(0.0);
    for (uint t = 0u; t < group.horizontalTaps; ++t) {
        float weight = uintBitsToFloat(uploadWord(entry + 1u + t));
        for (uint r = 0u; r < ROWS; ++r) {
            sums[r].x += weight * texelFetch(planes, int(rowBase[r] + t)).r;
            if (group.planeCount > 1u) sums[r].y += weight * texelFetch(planes, int(rowBase[r] + planeSize + t)).r;
            if (group.planeCount > 2u) sums[r].z += weight * texelFetch(planes, int(rowBase[r] + 2u * planeSize + t)).r;
        }
    }
    for (uint r = 0u; r < ROWS && firstRow + r < group.rowCount; ++r) {
        for (uint p = 0u; p < group.planeCount; ++p) {
            intermediate[group.intermediateOffset + (p * group.rowCount + firstRow + r) * job.width + column] = sums[r][p];
        }
    }
}
