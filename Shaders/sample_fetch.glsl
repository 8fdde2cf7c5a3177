// Reading samples of any supported layout from the upload buffer's words: 8-bit bytes or 16-bit little-endian
// words, one or two (Cb Cr interleaved) components per element, four bytes to a texel. Plane rows start on
// 4-byte boundaries, so a sample never straddles two words. One texel fetch per sample: on CPU drivers a fetch
// is a vector gather, and the shift that picks the sample out is a vector op, so this beats loading each word
// once and branching per byte.

// Component `component` of element x of a row.
float fetchElement(uint rowByte, uint x, uint bytesPerSample, uint components, uint component) {
    uint byteAddress = rowByte + (x * components + component) * bytesPerSample;
    uint word = uploadWord(byteAddress >> 2);
    uint shift = (byteAddress & 3u) << 3;
    uint mask = bytesPerSample == 1u ? 0xFFu : 0xFFFFu;
    return float((word >> shift) & mask);
}
