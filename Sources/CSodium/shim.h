#ifndef COFFER_CSODIUM_SHIM_H
#define COFFER_CSODIUM_SHIM_H
#include <sodium.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <malloc.h>

/* Process hardening: no core dumps, no ptrace attach by same-uid processes. Returns 0 on success. */
static inline int coffer_disable_dumping(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

static inline int coffer_harden_process(void) {
    struct rlimit none = {0, 0};
    int a = setrlimit(RLIMIT_CORE, &none);
    int b = coffer_disable_dumping();
    return (a == 0 && b == 0) ? 0 : -1;
}

/* The default action (death, no core) for the signals the Swift runtime's crash reporter catches. */
static inline void coffer_default_crash_signals(void) {
    const int signals[] = {SIGQUIT, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSEGV, SIGTRAP};
    for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; i++) signal(signals[i], SIG_DFL);
}

/* A fixed mmap threshold: glibc otherwise raises it to the size of the largest block freed. Returns 1 on success. */
static inline int coffer_fix_mmap_threshold(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}

static inline int coffer_is_dumpable(void) {
    return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
}
#endif
