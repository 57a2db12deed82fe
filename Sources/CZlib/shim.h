#ifndef COFFER_CZLIB_SHIM_H
#define COFFER_CZLIB_SHIM_H
#include <zlib.h>

/* inflateInit2 is a macro (it passes the library's version and the stream's size): Swift cannot
   call it, so this function does, with windowBits 15 + 16 (a gzip stream, not a zlib one). */
static inline int coffer_inflate_init_gzip(z_stream *stream) {
    return inflateInit2(stream, 15 + 16);
}
#endif
