// What Swift's Glibc module leaves out of the C library: epoll (sys/epoll.h is not part of
// it), and a thread's own niceness. Nothing here on other systems.
#ifndef REGISTERD_CPLATFORM_H
#define REGISTERD_CPLATFORM_H

#ifdef __linux__
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
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

#endif
