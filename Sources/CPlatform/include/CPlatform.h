// What Swift's Glibc module leaves out of the C library: epoll (sys/epoll.h is not part of
// it), a thread's own niceness, and glibc's malloc_trim. Nothing here on other systems.
#ifndef REGISTERD_CPLATFORM_H
#define REGISTERD_CPLATFORM_H

#ifdef __linux__
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif
#include <stdlib.h>
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

#endif
