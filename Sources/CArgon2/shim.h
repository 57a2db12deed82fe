// Argon2d and Argon2id with any parallelism, for KeePass databases (KDBX 4): libsodium has only
// Argon2id with one lane, KeePassXC uses Argon2d by default and several lanes. libargon2 (the
// reference implementation, Debian libargon2-1) is loaded with dlopen when a KDBX file first
// needs it, not linked: only `import --format kdbx` uses it, so `coffer` still starts (and does
// everything else) on a machine without it, and every other command maps nothing more (as
// libcurl and zbar are loaded, Sources/CCurl/shim.h, Sources/CQRCode/shim.h). The header
// (libargon2-dev) gives the types.
#ifndef COFFER_ARGON2_SHIM_H
#define COFFER_ARGON2_SHIM_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <argon2.h>

// What coffer_argon2_hash returns when libargon2.so.1 cannot be loaded (argon2's own codes are
// ARGON2_OK = 0 and negatives down to -35).
enum { COFFER_ARGON2_NOT_LOADED = -1000 };

typedef int (*coffer_argon2_hash_function)(const uint32_t, const uint32_t, const uint32_t, const void *, const size_t,
                                           const void *, const size_t, void *, const size_t, char *, const size_t,
                                           argon2_type, argon2_version);

// argon2_hash (raw output, no encoded string). memory is in KiB; type 0 is Argon2d, 2 Argon2id.
static inline int coffer_argon2_hash(uint32_t iterations, uint32_t memory_kib, uint32_t parallelism,
                                     const void *password, size_t password_length, const void *salt,
                                     size_t salt_length, void *hash, size_t hash_length, int type,
                                     uint32_t version) {
    // dlopen counts references: a second call finds the library already mapped.
    void *library = dlopen("libargon2.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) return COFFER_ARGON2_NOT_LOADED;
    coffer_argon2_hash_function function;
    *(void **)(&function) = dlsym(library, "argon2_hash");
    if (!function) return COFFER_ARGON2_NOT_LOADED;
    return function(iterations, memory_kib, parallelism, password, password_length, salt, salt_length, hash,
                    hash_length, NULL, 0, (argon2_type)type, (argon2_version)version);
}
#endif
