#version 450
#extension GL_GOOGLE_include_directive : require
// Pass 3: for each destination pixel of each job, filters the intermediate columns vertically (luma and chroma
// with their own kernels), converts Y'CbCr to R'G'B' with the source's 3x4 matrix (affine, so converting after
// filtering equals converting before, up to clamping), and writes RGBA8 into the job's canvas rect.

layout(local_size_x_id = 0, local_size_y_id = 1) in;
layout(constant_id = 2) const bool LINEAR_LIGHT = false;

#include "shader_interface.glsl"
#include "transfer.glsl"

layout(binding = 11) uniform samplerBuffer intermediate;
layout(std430, binding = 8) buffer CanvasPixels { uint canvasPixels[]; };

vec3 filterColumn(PlaneGroupPass group, uint width, uint x, uint y) {
    uint entry = group.verticalTable + y * (group.verticalTaps + 1u);
    uint start = uploadWord(entry);
    uint planeSize = group.rowCount * width;
    uint base = group.intermediateOffset + start * width + x;
    vec3 sum = vec3(0.0);
    for (uint t = 0u; t < group.verticalTaps; ++t) {
        float weight = uintBitsToFloat(uploadWord(entry + 1u + t));
        int index = int(base + t * width);
        sum.x += weight * texelFetch(intermediate, index).r;
        if (group.planeCount > 1u) sum.y += weight * texelFetch(intermediate, index + int(planeSize)).r;
        if (group.planeCount > 2u) sum.z += weight * texelFetch(intermediate, index + 2 * int(planeSize)).r;
    }
    return sum;
}

void main() {
    ResampleJob job = jobs[pass.job];
    uvec2 pixel = gl_GlobalInvocationID.xy;
    if (pixel.x >= job.width || pixel.y >= job.height) return;
    CanvasDescriptor canvas = canvases[pass.canvas];
    ivec2 target = ivec2(job.destinationX, job.destinationY) + ivec2(pixel);
    if (any(lessThan(target, ivec2(0))) || target.x >= int(canvas.width) || target.y >= int(canvas.height)) return;

    vec3 rgb;
    if (LINEAR_LIGHT) {
        rgb = encodeTransfer(filterColumn(job.luma, job.width, pixel.x, pixel.y));
    } else {
        SourceDescriptor source = sources[pass.source];
        vec4 ycc = vec4(filterColumn(job.luma, job.width, pixel.x, pixel.y).x, 0.0, 0.0, 1.0);
        if (job.chroma.planeCount == 2u) ycc.yz = filterColumn(job.chroma, job.width, pixel.x, pixel.y).xy;
        rgb = vec3(dot(ycc, vec4(source.matrix[0], source.matrix[1], source.matrix[2], source.matrix[3])),
                   dot(ycc, vec4(source.matrix[4], source.matrix[5], source.matrix[6], source.matrix[7])),
                   dot(ycc, vec4(source.matrix[8], source.matrix[9], source.matrix[10], source.matrix[11])));
    }
    uvec3 bytes = uvec3(clamp(rgb, 0.0, 1.0) * 255.0 + 0.5);
    canvasPixels[canvas.pixelOffset + uint(target.y) * canvas.width + uint(target.x)] =
        bytes.r | (bytes.g << 8) | (bytes.b << 16) | 0xFF000000u;
}
