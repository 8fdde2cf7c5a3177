import Testing
@testable import FrameFarmMedia

/// A remote input's name is its URL less what must not be kept: credentials, query, fragment.
@Suite struct RemoteNameTests {
    @Test func namesDropCredentialsQueriesAndFragments() {
        #expect(RemoteInput.name(of: "HTTPS://key:secret@bucket.example.com/a%20b/clip.mp4?X-Amz-Signature=1#t=5")
                == "https://bucket.example.com/a%20b/clip.mp4")
        #expect(RemoteInput.name(of: "http://host:8080?token=1") == "http://host:8080/")
        #expect(RemoteInput.name(of: "http://host/videos/clip.mp4") == "http://host/videos/clip.mp4")
        #expect(RemoteInput.isRemote("HTTP://host/x") && !RemoteInput.isRemote("httpfiles/clip.mp4"))
    }

    @Test func foldersComeFromThePathPercentDecoded() {
        #expect(RemoteInput.stem(of: "https://host/a/My%20Clip.final.mp4") == "My Clip.final")
        #expect(RemoteInput.stem(of: "https://host/a/odd%2Fname.mov") == "odd_name")
        #expect(RemoteInput.stem(of: "https://host/") == "")
        #expect(RemoteInput.folders(in: "news/2024%20Q1/clip.mp4") == ["news", "2024 Q1"])
    }

    /// What a playlist names takes the playlist's token only on the playlist's own origin: a token is never sent to
    /// another host, port or scheme; a URL with a query of its own keeps it.
    @Test func nestedURLsTakeThePlaylistsQueryOnItsOriginOnly() {
        let playlist = RemoteInput.register("https://CDN.example.com/show/master.m3u8?token=abc")
        func location(_ url: String) -> String { RemoteInput.location(of: RemoteInput.registerNested(url, within: playlist)) }
        #expect(location("https://cdn.example.com/show/v0.m3u8") == "https://cdn.example.com/show/v0.m3u8?token=abc")
        #expect(location("https://other.example.net/show/v1.m3u8") == "https://other.example.net/show/v1.m3u8")
        #expect(location("https://cdn.example.com:8443/show/v2.m3u8") == "https://cdn.example.com:8443/show/v2.m3u8")
        #expect(location("http://cdn.example.com/show/v3.m3u8") == "http://cdn.example.com/show/v3.m3u8")
        #expect(location("https://cdn.example.com/show/v4.m3u8?own=1") == "https://cdn.example.com/show/v4.m3u8?own=1")
    }

    @Test func ffmpegLogLinesLoseQueryStrings() {
        #expect(FFmpegLog.redacted("Opening 'https://h/x.mp4?sig=abc&k=1' for reading\n")
                == "Opening 'https://h/x.mp4' for reading\n")
        #expect(FFmpegLog.redacted("request: GET /v/clip.mp4?sig=1 HTTP/1.1 via http://h/x?y=1 and http://g/z#f")
                == "request: GET /v/clip.mp4 HTTP/1.1 via http://h/x and http://g/z")
        #expect(FFmpegLog.redacted("is it here? yes/no?") == "is it here? yes/no?")
    }
}
