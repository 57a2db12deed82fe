// A QR code read from a PNG image: libpng decodes it to grey pixels, zbar finds the codes. Both are
// loaded with dlopen when the first image is read, not when coffer starts: libzbar.so.0 needs X11,
// D-Bus, video4linux and libsystemd (~20 libraries) that every other command would map for nothing
// (as libcurl is loaded, Sources/CCurl/shim.h). The headers (libzbar-dev, libpng-dev) give the
// types; the libraries come from libzbar0 and libpng16-16 at run time.
//
// The image is a stranger's bytes: the caller bounds the file's size, and this refuses an image of
// more than `max_pixels` before any pixel is decoded. zbar scans for QR codes only (its other
// decoders stay off).
#ifndef COFFER_QRCODE_SHIM_H
#define COFFER_QRCODE_SHIM_H

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>
#include <zbar.h>

// What coffer_qr_scan_png returns when it finds no QR code to count.
enum {
    COFFER_QR_NOT_LOADED = -1,   // libzbar.so.0 or libpng16.so.16 could not be loaded
    COFFER_QR_NOT_PNG = -2,      // libpng refused the bytes (its message in `message`)
    COFFER_QR_TOO_LARGE = -3,    // more than max_pixels
    COFFER_QR_NO_MEMORY = -4,
    COFFER_QR_SCAN_FAILED = -5,  // zbar failed (not "found nothing")
};

struct coffer_qr_api {
    int (*png_begin)(png_imagep, png_const_voidp, size_t);
    int (*png_finish)(png_imagep, png_const_colorp, void *, png_int_32, void *);
    void (*png_free)(png_imagep);
    zbar_image_scanner_t *(*scanner_create)(void);
    void (*scanner_destroy)(zbar_image_scanner_t *);
    int (*scanner_set_config)(zbar_image_scanner_t *, zbar_symbol_type_t, zbar_config_t, int);
    zbar_image_t *(*image_create)(void);
    void (*image_destroy)(zbar_image_t *);
    void (*image_set_format)(zbar_image_t *, unsigned long);
    void (*image_set_size)(zbar_image_t *, unsigned, unsigned);
    void (*image_set_data)(zbar_image_t *, const void *, unsigned long, zbar_image_cleanup_handler_t *);
    int (*scan_image)(zbar_image_scanner_t *, zbar_image_t *);
    const zbar_symbol_t *(*first_symbol)(const zbar_image_t *);
    const zbar_symbol_t *(*symbol_next)(const zbar_symbol_t *);
    zbar_symbol_type_t (*symbol_type)(const zbar_symbol_t *);
    const char *(*symbol_data)(const zbar_symbol_t *);
    unsigned (*symbol_data_length)(const zbar_symbol_t *);
};

// Initialised, so that the Swift module that imports this header emits them.
static struct coffer_qr_api coffer_qr __attribute__((unused)) = {0};
static int coffer_qr_loaded __attribute__((unused)) = 0;
static pthread_once_t coffer_qr_once __attribute__((unused)) = PTHREAD_ONCE_INIT;

static void coffer_qr_load_once(void) {
    void *png = dlopen("libpng16.so.16", RTLD_NOW | RTLD_LOCAL);
    void *zbar = dlopen("libzbar.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!png || !zbar) return;
#define COFFER_QR_SYMBOL(library, field, name) \
    *(void **)(&coffer_qr.field) = dlsym(library, name); \
    if (!coffer_qr.field) return;
    COFFER_QR_SYMBOL(png, png_begin, "png_image_begin_read_from_memory")
    COFFER_QR_SYMBOL(png, png_finish, "png_image_finish_read")
    COFFER_QR_SYMBOL(png, png_free, "png_image_free")
    COFFER_QR_SYMBOL(zbar, scanner_create, "zbar_image_scanner_create")
    COFFER_QR_SYMBOL(zbar, scanner_destroy, "zbar_image_scanner_destroy")
    COFFER_QR_SYMBOL(zbar, scanner_set_config, "zbar_image_scanner_set_config")
    COFFER_QR_SYMBOL(zbar, image_create, "zbar_image_create")
    COFFER_QR_SYMBOL(zbar, image_destroy, "zbar_image_destroy")
    COFFER_QR_SYMBOL(zbar, image_set_format, "zbar_image_set_format")
    COFFER_QR_SYMBOL(zbar, image_set_size, "zbar_image_set_size")
    COFFER_QR_SYMBOL(zbar, image_set_data, "zbar_image_set_data")
    COFFER_QR_SYMBOL(zbar, scan_image, "zbar_scan_image")
    COFFER_QR_SYMBOL(zbar, first_symbol, "zbar_image_first_symbol")
    COFFER_QR_SYMBOL(zbar, symbol_next, "zbar_symbol_next")
    COFFER_QR_SYMBOL(zbar, symbol_type, "zbar_symbol_get_type")
    COFFER_QR_SYMBOL(zbar, symbol_data, "zbar_symbol_get_data")
    COFFER_QR_SYMBOL(zbar, symbol_data_length, "zbar_symbol_get_data_length")
#undef COFFER_QR_SYMBOL
    coffer_qr_loaded = 1;
}

/// Loads libpng and zbar once; 0 when either is not installed.
static inline int coffer_qr_load(void) {
    pthread_once(&coffer_qr_once, coffer_qr_load_once);
    return coffer_qr_loaded;
}

/// The QR codes of one PNG image: returns how many it holds (0 or more) or a COFFER_QR_ error. The
/// first code's bytes are copied to `first` (at most `first_capacity`; `*first_count` is its whole
/// length, which may be more). `message` (64 bytes) receives libpng's reason for COFFER_QR_NOT_PNG.
/// Any PNG libpng reads (grey, palette, RGB, alpha, 16-bit, interlaced) is turned into 8-bit grey
/// over a white background, so a transparent background reads as white.
static inline int coffer_qr_scan_png(const void *bytes, size_t count, uint32_t max_pixels,
                                     char *first, size_t first_capacity, size_t *first_count,
                                     char *message) {
    *first_count = 0;
    message[0] = 0;
    if (!coffer_qr_load()) return COFFER_QR_NOT_LOADED;
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!coffer_qr.png_begin(&image, bytes, count)) {
        strncpy(message, image.message, 63);
        message[63] = 0;
        coffer_qr.png_free(&image);
        return COFFER_QR_NOT_PNG;
    }
    if (image.width == 0 || image.height == 0 || image.width > max_pixels
        || (uint64_t)image.width * image.height > max_pixels) {
        coffer_qr.png_free(&image);
        return COFFER_QR_TOO_LARGE;
    }
    image.format = PNG_FORMAT_GRAY;
    size_t size = (size_t)image.width * image.height;
    unsigned char *pixels = malloc(size);
    if (!pixels) { coffer_qr.png_free(&image); return COFFER_QR_NO_MEMORY; }
    png_color white = {255, 255, 255};
    // png_image_finish_read frees what begin allocated, on success and on failure.
    if (!coffer_qr.png_finish(&image, &white, pixels, (png_int_32)image.width, NULL)) {
        strncpy(message, image.message, 63);
        message[63] = 0;
        free(pixels);
        return COFFER_QR_NOT_PNG;
    }
    zbar_image_scanner_t *scanner = coffer_qr.scanner_create();
    zbar_image_t *frame = coffer_qr.image_create();
    if (!scanner || !frame) {
        if (scanner) coffer_qr.scanner_destroy(scanner);
        if (frame) coffer_qr.image_destroy(frame);
        free(pixels);
        return COFFER_QR_NO_MEMORY;
    }
    coffer_qr.scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0);
    coffer_qr.scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1);
    coffer_qr.image_set_format(frame, zbar_fourcc('Y', '8', '0', '0'));
    coffer_qr.image_set_size(frame, image.width, image.height);
    coffer_qr.image_set_data(frame, pixels, size, NULL);
    int found = coffer_qr.scan_image(scanner, frame);
    int codes = 0;
    if (found < 0) {
        codes = COFFER_QR_SCAN_FAILED;
    } else {
        for (const zbar_symbol_t *symbol = coffer_qr.first_symbol(frame); symbol; symbol = coffer_qr.symbol_next(symbol)) {
            if (coffer_qr.symbol_type(symbol) != ZBAR_QRCODE) continue;
            if (codes == 0) {
                size_t length = coffer_qr.symbol_data_length(symbol);
                const char *data = coffer_qr.symbol_data(symbol);
                *first_count = length;
                if (data) memcpy(first, data, length < first_capacity ? length : first_capacity);
            }
            codes++;
        }
    }
    coffer_qr.image_destroy(frame);
    coffer_qr.scanner_destroy(scanner);
    // The pixels may show a secret's code: wiped before they are freed.
    explicit_bzero(pixels, size);
    free(pixels);
    return codes;
}
#endif
