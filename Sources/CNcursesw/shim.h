#ifndef COFFER_CNCURSESW_SHIM_H
#define COFFER_CNCURSESW_SHIM_H
/* SwiftPM drops pkg-config's -D flags: without these wget_wch and wint_t are missing. */
#define NCURSES_WIDECHAR 1
#define _XOPEN_SOURCE_EXTENDED 1
#include <locale.h>
#include <errno.h>
#include <langinfo.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ncursesw/curses.h>

/* Swift cannot see ncurses macros or use its globals from Swift 6 code: wrap them. */
static inline WINDOW *coffer_stdscr(void) { return stdscr; }
static inline int coffer_lines(void) { return LINES; }
static inline int coffer_cols(void) { return COLS; }
static inline int coffer_key_resize(void) { return KEY_RESIZE; }
static inline int coffer_key_up(void) { return KEY_UP; }
static inline int coffer_key_down(void) { return KEY_DOWN; }
static inline int coffer_key_left(void) { return KEY_LEFT; }
static inline int coffer_key_right(void) { return KEY_RIGHT; }
static inline int coffer_key_home(void) { return KEY_HOME; }
static inline int coffer_key_end(void) { return KEY_END; }
static inline int coffer_key_npage(void) { return KEY_NPAGE; }
static inline int coffer_key_ppage(void) { return KEY_PPAGE; }
static inline int coffer_key_backspace(void) { return KEY_BACKSPACE; }
static inline int coffer_key_enter(void) { return KEY_ENTER; }
static inline int coffer_key_dc(void) { return KEY_DC; }
static inline int coffer_key_btab(void) { return KEY_BTAB; }
static inline int coffer_key_f(int n) { return KEY_F(n); }
static inline int coffer_key_code_yes(void) { return KEY_CODE_YES; }
static inline attr_t coffer_a_bold(void) { return A_BOLD; }
static inline attr_t coffer_a_reverse(void) { return A_REVERSE; }
static inline attr_t coffer_a_dim(void) { return A_DIM; }
static inline attr_t coffer_a_underline(void) { return A_UNDERLINE; }
static inline attr_t coffer_a_normal(void) { return A_NORMAL; }
static inline attr_t coffer_color_pair(int n) { return COLOR_PAIR(n); }
static inline FILE *coffer_stdout(void) { return stdout; }
static inline FILE *coffer_stdin(void) { return stdin; }
static inline void coffer_clear_whole_screen(void) { clearok(curscr, TRUE); }
static inline int coffer_is_utf8_locale(void) { return strcmp(nl_langinfo(CODESET), "UTF-8") == 0; }

/* SIGINT, SIGTERM and SIGHUP only set a flag: the input loop polls it and closes the screen
   cleanly (endwin) instead of dying with the terminal in raw mode. Used from one Swift file only,
   so the static flag has one copy. */
static volatile sig_atomic_t coffer_pending_signal __attribute__((unused)) = 0;
/* The input loop sleeps in poll() on the terminal and a wake pipe; a signal may land on any of
   the process's threads, so its handler writes to the pipe to end the sleep (write is
   async-signal-safe). */
static volatile int coffer_wake_descriptor __attribute__((unused)) = -1;
static void coffer_wake_loop(void) {
    int descriptor = coffer_wake_descriptor;
    if (descriptor < 0) return;
    int saved = errno;
    char byte = 1;
    if (write(descriptor, &byte, 1) < 0) { /* a full pipe already holds a wake-up */ }
    errno = saved;
}
static void coffer_on_signal(int signal_number) {
    coffer_pending_signal = signal_number;
    coffer_wake_loop();
}
typedef void (*coffer_signal_handler)(int);
/* ncurses' own SIGWINCH handler (it notes the resize for wget_wch), called before waking; one
   word, so the handler reads it whole. */
static volatile uintptr_t coffer_ncurses_winch __attribute__((unused)) = 0;
static void coffer_on_winch(int signal_number) {
    coffer_signal_handler handler = (coffer_signal_handler)coffer_ncurses_winch;
    if (handler) handler(signal_number);
    coffer_wake_loop();
}
/* After newterm (which installs ncurses' SIGWINCH handler): signals also write to `descriptor`. */
static inline void coffer_wake_on_signals(int descriptor) {
    coffer_wake_descriptor = descriptor;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = coffer_on_winch;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    struct sigaction previous;
    if (sigaction(SIGWINCH, &action, &previous) == 0 && previous.sa_handler != coffer_on_winch
        && !(previous.sa_flags & SA_SIGINFO) && previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
        coffer_ncurses_winch = (uintptr_t)previous.sa_handler;
    }
}
static inline void coffer_install_signal_handlers(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = coffer_on_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGHUP, &action, NULL);
}
static inline int coffer_take_signal(void) {
    int signal_number = coffer_pending_signal;
    coffer_pending_signal = 0;
    return signal_number;
}

/* A last resort for exits that skip the normal path: leave the terminal usable. */
static void coffer_restore_terminal(void) { if (!isendwin()) endwin(); }
static inline void coffer_restore_terminal_at_exit(void) { atexit(coffer_restore_terminal); }
#endif
