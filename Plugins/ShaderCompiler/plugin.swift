import Foundation
import PackagePlugin

/// Compiles every `Shaders/*.comp` (GLSL compute) to SPIR-V at build time with glslangValidator, validates each
/// module with spirv-val, and embeds the result as a generated Swift source, so no SPIR-V binary is ever committed
/// and a shader error or an invalid module fails the build.
@main
struct ShaderCompiler: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let shadersDirectory = context.package.directoryURL.appending(path: "Shaders")
        let script = context.package.directoryURL.appending(path: "Plugins/ShaderCompiler/compile-shader.sh")
        let compiler = try find("glslangValidator", package: "glslang-tools")
        let validator = try find("spirv-val", package: "spirv-tools")
        let files = try FileManager.default.contentsOfDirectory(atPath: shadersDirectory.path())
        let includes = files.filter { $0.hasSuffix(".glsl") }.map { shadersDirectory.appending(path: $0) }
        return files.filter { $0.hasSuffix(".comp") }.sorted().map { file in
            let name = String(file.dropLast(".comp".count))
            let input = shadersDirectory.appending(path: file)
            let output = context.pluginWorkDirectoryURL.appending(path: "\(name).spirv.swift")
            return .buildCommand(
                displayName: "Compiling shader \(file)",
                executable: URL(filePath: "/bin/sh"),
                arguments: [script.path(), compiler, validator, input.path(), output.path(), name],
                inputFiles: [input, script] + includes,
                outputFiles: [output])
        }
    }

    private func find(_ tool: String, package: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") + ["/usr/bin", "/usr/local/bin"] {
            let candidate = "\(directory)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw ShaderCompilerError.toolNotFound(tool: tool, package: package)
    }
}

enum ShaderCompilerError: Error, CustomStringConvertible {
    case toolNotFound(tool: String, package: String)
    var description: String {
        switch self {
        case .toolNotFound(let tool, let package):
            "\(tool) not found on PATH: install Debian's \(package) (make run / make test do it)"
        }
    }
}
