// From encoded R'G'B' to display light and back to sRGB. Display light is relative to SDR reference white
// (1.0 = 203 cd/m², ITU-R BT.2408), so SDR spans 0...1 and HDR goes above. OutputConversion (Swift) sets the
// descriptor fields read here and documents the choices.

// Whether any source of the batch needs conversion; SDR batches compile none of it (CPU drivers run both sides
// of a branch).
layout(constant_id = 3) const bool CONVERTS_COLOR = false;

const float REFERENCE_WHITE_NITS = 203.0;

// SMPTE ST 2084 (PQ) constants.
const float PQ_M1 = 2610.0 / 16384.0;
const float PQ_M2 = 2523.0 / 4096.0 * 128.0;
const float PQ_C1 = 3424.0 / 4096.0;
const float PQ_C2 = 2413.0 / 4096.0 * 32.0;
const float PQ_C3 = 2392.0 / 4096.0 * 32.0;

// The sRGB curve, used for every SDR transfer (BT.709 and BT.1886 differ from it by less than the 8-bit output
// can show in practice).
vec3 srgbDecode(vec3 encoded) {
    return mix(encoded / 12.92, pow((encoded + 0.055) / 1.055, vec3(2.4)), greaterThan(encoded, vec3(0.04045)));
}

vec3 srgbEncode(vec3 linear) {
    linear = max(linear, vec3(0.0));
    return mix(linear * 12.92, 1.055 * pow(linear, vec3(1.0 / 2.4)) - 0.055, greaterThan(linear, vec3(0.0031308)));
}

// PQ signal -> display light (one channel and three).
float pqDecode(float signal) {
    float p = pow(signal, 1.0 / PQ_M2);
    return (10000.0 / REFERENCE_WHITE_NITS) * pow(max(p - PQ_C1, 0.0) / (PQ_C2 - PQ_C3 * p), 1.0 / PQ_M1);
}

vec3 pqDecode(vec3 signal) {
    vec3 p = pow(signal, vec3(1.0 / PQ_M2));
    return (10000.0 / REFERENCE_WHITE_NITS) * pow(max(p - PQ_C1, 0.0) / (PQ_C2 - PQ_C3 * p), vec3(1.0 / PQ_M1));
}

// Display light -> PQ signal.
float pqEncode(float light) {
    float y = pow(max(light, 0.0) * (REFERENCE_WHITE_NITS / 10000.0), PQ_M1);
    return pow((PQ_C1 + PQ_C2 * y) / (1.0 + PQ_C3 * y), PQ_M2);
}

// HLG (BT.2100): the inverse OETF gives scene light, the OOTF of the nominal 1000 cd/m² display (system gamma
// 1.2 on BT.2020 luminance) gives display light, where a 75% signal lands on reference white.
vec3 hlgDecode(vec3 signal) {
    const float a = 0.17883277, b = 0.28466892, c = 0.55991073;
    vec3 scene = mix(signal * signal / 3.0, (exp((signal - c) / a) + b) / 12.0, greaterThan(signal, vec3(0.5)));
    float luminance = dot(scene, vec3(0.2627, 0.6780, 0.0593));
    return (1000.0 / REFERENCE_WHITE_NITS) * pow(luminance, 0.2) * scene;
}

// Display light in the source's primaries from its encoded R'G'B'.
vec3 decodeTransfer(vec3 encoded, uint transfer) {
    encoded = clamp(encoded, 0.0, 1.0);
    if (CONVERTS_COLOR && transfer == 1u) return pqDecode(encoded);
    if (CONVERTS_COLOR && transfer == 2u) return hlgDecode(encoded);
    return srgbDecode(encoded);
}

// ITU-R BT.2390 EETF: the PQ signal of light from a display of peak `peak` (a PQ signal) on one whose peak is
// reference white. Linear below the knee, a Hermite spline above it that reaches white at the source peak.
float toneMap(float signal, float peak) {
    float target = pqEncode(1.0) / peak;
    float knee = 1.5 * target - 0.5;
    float x = min(signal / peak, 1.0);
    float t = (x - knee) / (1.0 - knee);
    float t2 = t * t, t3 = t2 * t;
    float spline = (2.0 * t3 - 3.0 * t2 + 1.0) * knee + (t3 - 2.0 * t2 + t) * (1.0 - knee) + (-2.0 * t3 + 3.0 * t2) * target;
    return (x < knee ? x : spline) * peak;
}

// 8-bit-ready sRGB from display light in the source's primaries.
vec3 encodeOutput(vec3 light, SourceDescriptor source) {
    if (CONVERTS_COLOR && source.convertsColor != 0u) {
        vec3 rgb = vec3(dot(light, source.gamut[0].xyz), dot(light, source.gamut[1].xyz), dot(light, source.gamut[2].xyz));
        // Outside BT.709's gamut: move toward the pixel's own luminance, keeping its hue, until no channel is
        // negative (clipping each channel instead shifts hue).
        float luminance = dot(rgb, vec3(0.2126, 0.7152, 0.0722));
        float lowest = min(min(rgb.r, rgb.g), rgb.b);
        if (lowest < 0.0) rgb = luminance > 0.0 ? mix(vec3(luminance), rgb, luminance / (luminance - lowest)) : vec3(0.0);
        // Above white: the curve on the largest channel, every channel scaled alike (hue and saturation kept).
        float largest = max(max(rgb.r, rgb.g), rgb.b);
        if (source.toneMapPeak > 0.0 && largest > 0.0) {
            float mapped = pqDecode(toneMap(pqEncode(largest), source.toneMapPeak));
            rgb *= mapped / largest;
        }
        light = rgb;
    }
    return srgbEncode(clamp(light, 0.0, 1.0));
}
