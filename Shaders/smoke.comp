#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Data { uint values[]; };
void main() { values[gl_GlobalInvocationID.x] = gl_GlobalInvocationID.x; }
