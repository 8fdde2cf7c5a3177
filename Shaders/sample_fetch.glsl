// Reading samples of any supported layout from the source words: 8-bit bytes or 16-bit little-endian words,
// one or two (Cb Cr interleaved) components per element, packed four bytes to a uint. Plane rows start on
// 4-byte boundaries and an element never straddles two words.

// Component `component` of element x of a row.
float fetchElement(uint rowByte, uint x, uint bytesPerSample, uint components, uint component) {
    uint byteAddress = rowByte + (x * components + component) * bytesPerSample;
    uint word = sourceWords[byteAddress >> 2];
    uint shift = (byteAddress & 3u) << 3;
    uint mask = bytesPerSample == 1u ? 0xFFu : 0xFFFFu;
    return float((word >> shift) & mask);
}

// Sums of both components of elements [x0, x1) of a row (x1 > x0), loading each word once.
vec2 sumRow(uint rowByte, uint x0, uint x1, uint bytesPerSample, uint components) {
    uint elementBytes = bytesPerSample * components;
    uint firstByte = rowByte + x0 * elementBytes;
    uint endByte = rowByte + x1 * elementBytes;
    uint mask = bytesPerSample == 1u ? 0xFFu : 0xFFFFu;
    uint secondShift = bytesPerSample << 3;
    vec2 sum = vec2(0.0);
    for (uint w = firstByte >> 2; w <= (endByte - 1u) >> 2; ++w) {
        uint word = sourceWords[w];
        for (uint b = 0u; b < 4u; b += elementBytes) {
            uint byteAddress = (w << 2) + b;
            if (byteAddress >= firstByte && byteAddress < endByte) {
                uint shifted = word >> (b << 3);
                sum += vec2(float(shifted & mask), float((shifted >> secondShift) & mask));
            }
        }
    }
    return sum;
}
