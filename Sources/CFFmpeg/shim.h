#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
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
static inline int64_t framefarm_av_nopts_value(void) { return AV_NOPTS_VALUE; }
