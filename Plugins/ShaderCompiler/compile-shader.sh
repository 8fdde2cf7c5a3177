#!/bin/sh
# compile-shader.sh COMPILER VALIDATOR INPUT.comp OUTPUT.swift NAME
# Compiles one GLSL compute shader to SPIR-V, validates it with spirv-val, and writes it as a base64 literal in a
# Swift extension of ShaderLibrary (base64 keeps the Swift compiler fast; a [UInt32] literal of thousands of words
# is not).
set -eu
compiler="$1"; validator="$2"; input="$3"; output="$4"; name="$5"
spirv="$output.spv"
log="$output.log"
if ! "$compiler" -V --target-env vulkan1.1 -I"$(dirname "$input")" -o "$spirv" "$input" >"$log" 2>&1; then
    cat "$log" >&2
    echo "error: shader $input failed to compile" >&2
    exit 1
fi
# An empty or invalid module fails the build here, not at the first pipeline made from it.
if [ ! -s "$spirv" ] || ! "$validator" --target-env vulkan1.1 "$spirv" >"$log" 2>&1; then
    cat "$log" >&2
    echo "error: shader $input compiled to an invalid SPIR-V module (spirv-val)" >&2
    exit 1
fi
{
    echo "// Generated from Shaders/$name.comp by the ShaderCompiler plugin. Do not edit."
    echo "extension ShaderLibrary {"
    printf '    static let %s = SPIRVModule(name: "%s", base64: "' "$name" "$name"
    base64 -w0 "$spirv"
    echo '")'
    echo "}"
} >"$output"
rm -f "$spirv" "$log"
