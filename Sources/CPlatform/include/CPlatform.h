// What Swift's Glibc module leaves out of the C library: epoll (sys/epoll.h is not part of
// it), a thread's own niceness, glibc's malloc_trim, and signal handlers for a full-screen
// terminal program (a Swift closure cannot be relied on to be async-signal-safe).
#ifndef REGISTERD_CPLATFORM_H
#define REGISTERD_CPLATFORM_H

#ifdef __linux__
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif
#include <signal.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

// Gives the calling thread (not the whole process) the scheduling niceness `nice` (Linux: a
// thread is a task of its own; Swift's Glibc module has no gettid, and syscall is variadic).
// Returns 0, or -1 with errno set; elsewhere it does nothing and returns 0.
static inline int registerd_set_thread_niceness(int nice) {
#ifdef __linux__
  return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice);
#else
  (void)nice;
  return 0;
#endif
}

// Gives the memory malloc holds free back to the system. glibc keeps what is freed in its
// arenas, and returns it from the top of the heap only: after clients that held megabytes of
// replies leave, the daemon's resident size would stay as high as they took it.
// malloc_trim(0) releases every free page of every arena. Elsewhere it does nothing.
static inline void registerd_return_free_memory(void) {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

// A full-screen terminal program's signals (CPlatform.c). The terminal must come back as it
// was on every way out: the settings saved before raw mode and the escape sequences that leave
// the full screen are kept in C, where a signal handler reaches them without allocating.
//
// Remembers the terminal `descriptor` to restore and installs the handlers: SIGWINCH, SIGINT,
// SIGTERM, SIGHUP and SIGQUIT are reported as one byte (the signal's number) written to
// `pipe_descriptor` (non-blocking); a crash signal (a Swift trap is SIGILL or SIGTRAP, abort is
// SIGABRT) restores the terminal and ends the program as the signal would have. Returns 0, or
// -1 with errno set.
int registerd_terminal_arm(int descriptor, const struct termios *saved, const char *leave,
                           int leave_length, int pipe_descriptor);

// The terminal as it was before `registerd_terminal_arm`, and nothing more to restore.
void registerd_terminal_disarm(void);

#endif
