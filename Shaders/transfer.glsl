// The sRGB curve, used for every SDR transfer (BT.709 and BT.1886 differ from it by less than the 8-bit output
// can show in practice) when resampling in linear light.
vec3 decodeTransfer(vec3 encoded) {
    return mix(encoded / 12.92, pow((encoded + 0.055) / 1.055, vec3(2.4)), greaterThan(encoded, vec3(0.04045)));
}

vec3 encodeTransfer(vec3 linear) {
    linear = max(linear, vec3(0.0));
    return mix(linear * 12.92, 1.055 * pow(linear, vec3(1.0 / 2.4)) - 0.055, greaterThan(linear, vec3(0.0031308)));
}
