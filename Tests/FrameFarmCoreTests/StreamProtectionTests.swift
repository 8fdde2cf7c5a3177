import FrameFarmCore
import Testing

/// Which key lines are DRM: AES-128 and SAMPLE-AES with a plain key are not (FFmpeg decrypts them with the key
/// the playlist points to); key systems that need a license server are, by name.
@Test func keyLinesNameTheirDRMSystem() {
    func drm(_ key: String) -> String? { StreamProtection.drm(in: "#EXTM3U\n\(key)\n#EXTINF:2.0,\na.ts\n") }
    #expect(drm("#EXT-X-KEY:METHOD=NONE") == nil)
    #expect(drm("#EXT-X-KEY:METHOD=AES-128,URI=\"https://keys.example/k?a=1,b=2\",IV=0x01") == nil)
    #expect(drm("#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"k.bin\",KEYFORMAT=\"identity\"") == nil)
    #expect(drm("#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"skd://x\"") == "FairPlay")
    #expect(drm("#EXT-X-SESSION-KEY:METHOD=SAMPLE-AES-CTR,URI=\"data:text/plain;base64,AAAA\",KEYFORMAT=\"urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed\"") == "Widevine")
    #expect(drm("#EXT-X-KEY:METHOD=SAMPLE-AES-CTR,KEYFORMAT=\"com.microsoft.playready\",URI=\"x\"") == "PlayReady")
    #expect(StreamProtection.drm(in: "<MPD><Period><AdaptationSet></AdaptationSet></Period></MPD>") == nil)
    #expect(StreamProtection.drm(in: "<MPD><ContentProtection schemeIdUri=\"urn:uuid:9A04F079-9840-4286-AB92-E65BE0885F95\"/></MPD>") == "PlayReady")
}
