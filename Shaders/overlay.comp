#version 450
#extension GL_GOOGLE_include_directive : require
// Pass 4: draws each canvas's overlays, in order, over the rendered pixels: safe-area outlines, the screen's
// rounded-corner mask (antialiased by pixel coverage) and translucent tints. Tiles cover only where some
// overlay of the canvas can change a pixel; each pixel applies all of its canvas's overlays in order. A canvas
// drawn in windows of rows gets one dispatch per window, each over the window's own tiles.

layout(local_size_x_id = 0, local_size_y_id = 1) in;

#include "shader_interface.glsl"

layout(std430, binding = 8) buffer CanvasPixels { uint canvasPixels[]; };

vec4 unpackColor(uint packed) { return vec4(uvec4(packed, packed >> 8, packed >> 16, packed >> 24) & 0xFFu); }
uint packColor(vec4 color) {
    uvec4 bytes = uvec4(clamp(floor(color + 0.5), 0.0, 255.0));
    return bytes.r | (bytes.g << 8) | (bytes.b << 16) | (bytes.a << 24);
}

// Over-blend `color` (alpha 0-255) on `pixel` with extra `coverage`.
vec4 blend(vec4 pixel, vec4 color, float coverage) {
    float alpha = color.a / 255.0 * coverage;
    return vec4(mix(pixel.rgb, color.rgb, alpha), pixel.a + (255.0 - pixel.a) * alpha);
}

bool inside(ivec2 p, int x, int y, int width, int height) {
    return p.x >= x && p.y >= y && p.x < x + width && p.y < y + height;
}

// Fraction of pixel p covered by the rounded rect of the whole canvas (signed distance at the pixel centre).
float roundedRectCoverage(ivec2 p, vec2 size, float radius) {
    vec2 centre = vec2(p) + 0.5;
    vec2 corner = clamp(centre, vec2(radius), size - radius);
    if (centre == corner) return 1.0;
    float distanceOutside = length(centre - corner) - radius;
    return clamp(0.5 - distanceOutside, 0.0, 1.0);
}

void main() {
    CanvasDescriptor canvas = dispatchCanvas;
    uint cell = overlayCells[pass.firstCell + gl_WorkGroupID.x];
    uvec2 pixel = uvec2(cell & 0xFFFFu, cell >> 16) * gl_WorkGroupSize.xy + gl_LocalInvocationID.xy;
    if (pixel.x >= canvas.width || pixel.y >= canvas.height) return;
    uint index = pixel.y * canvas.width + pixel.x;
    // Cells are counted in the window; overlays are placed on the whole canvas.
    ivec2 p = ivec2(pixel) + ivec2(0, int(canvas.firstRow));
    vec4 color = unpackColor(canvasPixels[index]);
    vec4 original = color;
    for (uint o = 0u; o < canvas.overlayCount; ++o) {
        OverlayDescriptor overlay = dispatchCanvas.overlays[o];
        if (overlay.kind == 0u) {
            int t = overlay.thickness;
            if (inside(p, overlay.x, overlay.y, overlay.width, overlay.height)
                && !inside(p, overlay.x + t, overlay.y + t, overlay.width - 2 * t, overlay.height - 2 * t)) {
                color = blend(color, unpackColor(overlay.color), 1.0);
            }
        } else if (overlay.kind == 1u) {
            float coverage = roundedRectCoverage(p, vec2(canvas.width, canvas.canvasHeight), overlay.radius);
            color = mix(unpackColor(canvas.background), color, coverage);
        } else if (inside(p, overlay.x, overlay.y, overlay.width, overlay.height)) {
            color = blend(color, unpackColor(overlay.color), 1.0);
        }
    }
    if (color != original) canvasPixels[index] = packColor(color);
}
