import CVulkan
public func smokeWords() -> Int { ShaderLibrary.smoke.words.count }
