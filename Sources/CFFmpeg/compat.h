#ifndef FRAMEFARM_FFMPEG_COMPAT_H
#define FRAMEFARM_FFMPEG_COMPAT_H

// The one place that knows which FFmpeg it is built against. Fields and calls deprecated in FFmpeg 6.1 and gone in
// 7.x/8 (Debian 12 ships 5.1, Ubuntu 24.04 6.1, Debian 13 7.1) are reached only through these helpers, each
// choosing the API of the headers it is compiled with; the Swift code never names them.

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/frame.h>

// A custom get_buffer2 that may be called from any thread (FrameFarm's pool locks). Before FFmpeg 6.0 a decoder
// must be told, or its frame threads hand every call to the thread that feeds it, and each decoder warns.
static inline void framefarm_mark_callbacks_thread_safe(AVCodecContext *_Nonnull context) {
#if FF_API_THREAD_SAFE_CALLBACKS
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
    context->thread_safe_callbacks = 1;
#pragma clang diagnostic pop
#else
    (void)context;
#endif
}

// Key and interlacing flags: AVFrame fields until 6.1, bits of AVFrame.flags since.
static inline int framefarm_frame_is_key(const AVFrame *_Nonnull frame) {
#ifdef AV_FRAME_FLAG_KEY
    return (frame->flags & AV_FRAME_FLAG_KEY) != 0;
#else
    return frame->key_frame != 0;
#endif
}

static inline int framefarm_frame_is_interlaced(const AVFrame *_Nonnull frame) {
#ifdef AV_FRAME_FLAG_INTERLACED
    return (frame->flags & AV_FRAME_FLAG_INTERLACED) != 0;
#else
    return frame->interlaced_frame != 0;
#endif
}

static inline int framefarm_frame_is_top_field_first(const AVFrame *_Nonnull frame) {
#ifdef AV_FRAME_FLAG_TOP_FIELD_FIRST
    return (frame->flags & AV_FRAME_FLAG_TOP_FIELD_FIRST) != 0;
#else
    return frame->top_field_first != 0;
#endif
}

static inline void framefarm_frame_mark_interlaced_top_field_first(AVFrame *_Nonnull frame) {
#ifdef AV_FRAME_FLAG_INTERLACED
    frame->flags |= AV_FRAME_FLAG_INTERLACED | AV_FRAME_FLAG_TOP_FIELD_FIRST;
#else
    frame->interlaced_frame = 1;
    frame->top_field_first = 1;
#endif
}

// Stream side data (display matrix, HDR metadata): AVStream.side_data until 6.1, AVCodecParameters'
// coded_side_data since (av_stream_get_side_data and av_stream_new_side_data are gone in 7.0).
#define FRAMEFARM_CODED_SIDE_DATA (LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 30, 100))

static inline const uint8_t *_Nullable framefarm_stream_side_data(const AVStream *_Nonnull stream,
                                                                  enum AVPacketSideDataType type,
                                                                  size_t *_Nonnull size) {
#if FRAMEFARM_CODED_SIDE_DATA
    const AVPacketSideData *entry = av_packet_side_data_get(stream->codecpar->coded_side_data,
                                                            stream->codecpar->nb_coded_side_data, type);
    *size = entry ? entry->size : 0;
    return entry ? entry->data : NULL;
#else
    return av_stream_get_side_data(stream, type, size);
#endif
}

static inline uint8_t *_Nullable framefarm_stream_new_side_data(AVStream *_Nonnull stream,
                                                                enum AVPacketSideDataType type, size_t size) {
#if FRAMEFARM_CODED_SIDE_DATA
    AVPacketSideData *entry = av_packet_side_data_new(&stream->codecpar->coded_side_data,
                                                      &stream->codecpar->nb_coded_side_data, type, size, 0);
    return entry ? entry->data : NULL;
#else
    return av_stream_new_side_data(stream, type, size);
#endif
}

// The pixel formats an encoder takes, ending in AV_PIX_FMT_NONE, or NULL when it does not say: AVCodec.pix_fmts
// until 7.1, avcodec_get_supported_config since.
static inline const enum AVPixelFormat *_Nullable framefarm_encoder_pixel_formats(const AVCodec *_Nonnull codec) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(61, 13, 100)
    const void *formats = NULL;
    if (avcodec_get_supported_config(NULL, codec, AV_CODEC_CONFIG_PIX_FORMAT, 0, &formats, NULL) < 0) return NULL;
    return (const enum AVPixelFormat *)formats;
#else
    return codec->pix_fmts;
#endif
}

#endif
