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

// Components 0 and 1 of the samples of `word` (at byte address wordByte) that fall in bytes [first, end),
// masked and summed with packed-integer adds: no per-sample control flow, which CPU drivers run slowest.
uvec2 sumWord(uint word, uint wordByte, uint first, uint end, uint bytesPerSample, uint components) {
    uint low = uint(clamp(int(first) - int(wordByte), 0, 4)), high = uint(clamp(int(end) - int(wordByte), 0, 4));
    uint keep = (high == 4u ? 0xFFFFFFFFu : (1u << (high * 8u)) - 1u) & ~(low == 4u ? 0xFFFFFFFFu : (1u << (low * 8u)) - 1u);
    word &= keep;
    uvec2 evenOdd = uvec2(word & 0x00FF00FFu, (word >> 8) & 0x00FF00FFu);  // bytes 0+2 and 1+3, packed
    uvec2 byteSums = (evenOdd & 0xFFFFu) + (evenOdd >> 16);
    uvec2 halves = uvec2(word & 0xFFFFu, word >> 16);
    if (bytesPerSample == 1u) return components == 2u ? byteSums : uvec2(byteSums.x + byteSums.y, 0u);
    return components == 2u ? halves : uvec2(halves.x + halves.y, 0u);
}
