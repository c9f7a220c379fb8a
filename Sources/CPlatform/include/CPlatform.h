// What Swift's Glibc module leaves out of the C library: epoll (sys/epoll.h is not part of
// it). Nothing here on other systems.
#ifndef REGISTERD_CPLATFORM_H
#define REGISTERD_CPLATFORM_H

#ifdef __linux__
#include <sys/epoll.h>
#endif

#endif
