#ifndef COFFER_CZLIB_SHIM_H
#define COFFER_CZLIB_SHIM_H
#include <zlib.h>

/* inflateInit2 is a macro (it passes the library's version and the stream's size): Swift cannot
   call it, so this function does, with windowBits 15 + 16 (a gzip stream, not a zlib one). */
static inline int coffer_inflate_init_gzip(z_stream *stream) {
    return inflateInit2(stream, 15 + 16);
}

/* deflateInit2 is a macro too: a gzip stream (windowBits 15 + 16) at the default level, for the
   KDBX files `export --format kdbx` writes. */
static inline int coffer_deflate_init_gzip(z_stream *stream) {
    return deflateInit2(stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
#endif
