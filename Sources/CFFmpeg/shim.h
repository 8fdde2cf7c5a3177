#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/aes.h>
#include <libavutil/avutil.h>
#include <libavutil/cpu.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
#include "compat.h"

// Function-like macros Swift cannot import.
static inline int framefarm_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int framefarm_averror_eof(void) { return AVERROR_EOF; }
static inline int framefarm_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int framefarm_averror_exit(void) { return AVERROR_EXIT; }
static inline int64_t framefarm_av_nopts_value(void) { return AV_NOPTS_VALUE; }

// FFmpeg's log callback takes a va_list, which Swift cannot receive: this one formats the line in C and hands it
// to `sink` (FrameFarmMedia's FFmpegLog, which takes URLs' query strings out before printing).
typedef void (*framefarm_log_sink)(const char *line);
static inline framefarm_log_sink *framefarm_log_sink_slot(void) {
    static framefarm_log_sink sink;
    return &sink;
}
static inline void framefarm_log_formatting_callback(void *context, int level, const char *format, va_list arguments) {
    framefarm_log_sink sink = *framefarm_log_sink_slot();
    if (level > av_log_get_level() || !sink) return;
    char line[2048];
    int printPrefix = 1;
    av_log_format_line2(context, level, format, arguments, line, sizeof line, &printPrefix);
    sink(line);
}
static inline void framefarm_log_set_sink(framefarm_log_sink sink) {
    *framefarm_log_sink_slot() = sink;
    av_log_set_callback(framefarm_log_formatting_callback);
}
