// Data shared by every pass of a render batch: the structs mirrored in Sources/FrameFarmGPU/ShaderInterface.swift
// (scalars, explicit padding where std140 aligns to 16 bytes, so the Swift structs match member for member), the
// bindings of the one descriptor set layout all passes share, and the tile lookup every pass starts with.

struct SourceDescriptor {
    uint byteOffset;        // of the frame in the upload buffer; a multiple of 4
    uint planeLayout;           // 0 planar, 1 semi-planar (Cb Cr interleaved in plane 1), 2 gray
    uint bytesPerSample;    // 1 or 2 (little-endian 16-bit words)
    uint lumaOffset;        // plane byte offsets and strides, relative to byteOffset; all multiples of 4
    uint lumaStride;
    uint cbOffset;
    uint crOffset;
    uint chromaStride;
    uint lumaWidth;
    uint lumaHeight;
    uint chromaWidth;
    uint chromaHeight;
    float chromaScaleX;      // chroma coordinate = luma coordinate * scale + offset (linear-light upsampling)
    float chromaScaleY;
    float chromaOffsetX;
    float chromaOffsetY;
    uint transfer;           // 0: SDR (the sRGB curve stands for every SDR transfer), 1: PQ, 2: HLG
    uint convertsColor;      // 1: HDR or primaries other than BT.709's, so output decodes, converts, re-encodes
    float toneMapPeak;       // the content's peak as a PQ signal; 0: nothing above reference white
    uint pad0;               // std140 puts the vec4 array on a 16-byte boundary
    vec4 matrix[3];          // rows of a 3x4: R'G'B' = M * (Y, Cb, Cr, 1) with samples as stored (raw words)
    vec4 gamut[3];           // rows (xyz) of linear source-primaries RGB -> linear BT.709 RGB
};

struct PrefilterImage {
    uint sourceIndex;
    uint planeGroup;         // 0 luma (linear light: R, G, B at luma resolution), 1 chroma (Cb, Cr)
    int originX;             // first plane pixel of the crop; box (i, j) starts at origin + (i, j) * shrink
    int originY;
    int lastX;               // last plane pixel of the crop: samples past it repeat it
    int lastY;
    uint shrinkX;            // box size; 1 just unpacks samples to floats
    uint shrinkY;
    uint width;              // of the output image, in boxes
    uint height;
    uint outputOffset;       // float index (a multiple of 4); plane p starts at outputOffset + p * stride * height
    uint planeCount;
    uint wordsPerRow;        // words an invocation's row of samples can span (all of its boxes)
    uint stride;             // floats per output row: the width rounded up to 4, so rows start on quads
};

struct PlaneGroupPass {      // one plane group (luma or chroma) of a job, through both resampling passes
    uint planeCount;         // 0 when the group is absent (gray chroma, linear-light chroma)
    uint imageIndex;         // prefilter image the horizontal pass reads
    uint rowStart;           // first image row the horizontal pass filters
    uint rowCount;
    uint horizontalTable;    // word index (a multiple of 4) in the upload buffer: per destination column, a quad
                             // holding the first image quad, then horizontalTaps quads of weights
    uint horizontalTaps;     // in quads
    uint verticalTable;      // per destination row: start (relative to rowStart) then taps weights
    uint verticalTaps;
    uint intermediateOffset; // float index (a multiple of 4); plane p, row r, column c at offset + (p * rowCount + r)
                             // * intermediateStride + c
    uint pad0;               // std140 rounds a struct up to 16 bytes
    uint pad1;
    uint pad2;
};

struct ResampleJob {
    uint sourceIndex;
    uint canvasIndex;
    int destinationX;
    int destinationY;
    uint width;              // destination size, turned like the source (width and height swap for 90 and 270)
    uint height;
    uint transform;          // display transform: clockwise quarter turns in bits 0-1, mirrored first in bit 2
    uint intermediateStride; // floats per intermediate row: the width rounded up to 4, so rows start on quads
    PlaneGroupPass luma;
    PlaneGroupPass chroma;
};

struct OverlayDescriptor {
    uint kind;               // 0 outline, 1 rounded-corner mask, 2 tint
    int x;
    int y;
    int width;
    int height;
    uint color;              // RGBA8, R in the low byte; alpha blends
    int thickness;
    float radius;
};

// A canvas carries its overlays in its own uniform block: the overlay pass reads them at uniform addresses, which
// drivers load once per dispatch (from a storage buffer, lavapipe loaded them lane by lane: 4x the pass's time).
const uint MAX_CANVAS_OVERLAYS = 8u;

// A canvas, or where a canvas is larger than the device binds at once, a window of its rows (BatchPlan.windows):
// the canvas buffer is bound at the window's first pixel, and jobs are placed relative to it.
struct CanvasDescriptor {
    uint pixelOffset;        // host only: the canvas buffer is bound at the window's first pixel
    uint width;
    uint height;             // of the window: rows firstRow ..< firstRow + height of the canvas
    uint background;         // RGBA8, R in the low byte
    uint overlayCount;
    uint firstRow;           // overlays are placed on the whole canvas
    uint canvasHeight;
    uint pad0;               // std140 puts the struct array on a 16-byte boundary
    OverlayDescriptor overlays[MAX_CANVAS_OVERLAYS];
};

// Which item a dispatch works on. The host turns the item indices into dynamic offsets of the uniform blocks
// below, so each pass reads its item's descriptors at constant offsets: drivers load those once per dispatch
// (lavapipe loaded indexed storage-buffer structs lane by lane, in every invocation). Shaders read only `group`
// and `firstCell` from here.
layout(push_constant) uniform PassConstants {
    uint job;                // ResampleJob (horizontal, vertical)
    uint group;              // 0 luma, 1 chroma (horizontal)
    uint image;              // PrefilterImage (prefilter, horizontal)
    uint source;             // SourceDescriptor (prefilter, vertical)
    uint canvas;             // CanvasDescriptor (vertical, overlay)
    uint firstCell;          // overlay: this canvas's first entry in the cell table
} pass;

// Bulk reads go through texel views (texelFetch takes the texture path, a gather on CPU drivers); the dispatch's
// descriptors (a canvas's with its overlays) are uniform blocks bound at the item's dynamic offset; the overlay
// cell table is a storage buffer.
layout(binding = 0) uniform usamplerBuffer uploadWords;     // the upload buffer: source bytes and filter tables
layout(binding = 11) uniform samplerBuffer uploadQuads;     // the same, four floats to a texel (horizontal weights)
layout(std140, binding = 1) uniform SourceBlock { SourceDescriptor dispatchSource; };
layout(std140, binding = 2) uniform ImageBlock { PrefilterImage dispatchImage; };
layout(std140, binding = 3) uniform JobBlock { ResampleJob dispatchJob; };
layout(std430, binding = 5) readonly buffer OverlayCells { uint overlayCells[]; };  // x | y << 16, in tiles
layout(std140, binding = 9) uniform CanvasBlock { CanvasDescriptor dispatchCanvas; };

uint uploadWord(uint index) { return texelFetch(uploadWords, int(index)).r; }
