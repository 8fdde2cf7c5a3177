import Foundation
import PackagePlugin

/// Compiles every `Shaders/*.comp` (GLSL compute) to SPIR-V at build time with glslangValidator and embeds the
/// result as a generated Swift source, so no SPIR-V binary is ever committed and a shader error fails the build.
@main
struct ShaderCompiler: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let shadersDirectory = context.package.directoryURL.appending(path: "Shaders")
        let script = context.package.directoryURL.appending(path: "Plugins/ShaderCompiler/compile-shader.sh")
        let compiler = try findCompiler()
        let files = try FileManager.default.contentsOfDirectory(atPath: shadersDirectory.path())
        let includes = files.filter { $0.hasSuffix(".glsl") }.map { shadersDirectory.appending(path: $0) }
        return files.filter { $0.hasSuffix(".comp") }.sorted().map { file in
            let name = String(file.dropLast(".comp".count))
            let input = shadersDirectory.appending(path: file)
            let output = context.pluginWorkDirectoryURL.appending(path: "\(name).spirv.swift")
            return .buildCommand(
                displayName: "Compiling shader \(file)",
                executable: URL(filePath: "/bin/sh"),
                arguments: [script.path(), compiler, input.path(), output.path(), name],
                inputFiles: [input, script] + includes,
                outputFiles: [output])
        }
    }

    private func findCompiler() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") + ["/usr/bin", "/usr/local/bin"] {
            let candidate = "\(directory)/glslangValidator"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw ShaderCompilerError.compilerNotFound
    }
}

enum ShaderCompilerError: Error, CustomStringConvertible {
    case compilerNotFound
    var description: String {
        "glslangValidator not found on PATH: install Debian's glslang-tools (make run / make test do it)"
    }
}
