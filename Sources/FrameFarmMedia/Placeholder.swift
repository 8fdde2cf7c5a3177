import CFFmpeg
import CPNG
import CTurboJPEG
public func ffmpegVersion() -> String { String(cString: av_version_info()) }
