// The C platform target: system headers Swift's Glibc module leaves out (include/CPlatform.h),
// and the signal handlers of a full-screen terminal program, which must be async-signal-safe.
#include "CPlatform.h"

#include <errno.h>

// What to restore on every way out. Written only before the handlers are installed and after
// they have nothing left to do, so a handler never sees it half-written.
static struct {
  int descriptor;  // the terminal (-1: nothing to restore)
  struct termios saved;
  char leave[128];  // the escape sequences that leave the full screen
  int leave_length;
  int signal_pipe;  // where reported signals go (-1: nowhere)
} terminal = {-1, {0}, {0}, 0, -1};

// The terminal as it was (write and tcsetattr are async-signal-safe).
static void restore_terminal(void) {
  if (terminal.descriptor < 0) return;
  if (terminal.leave_length > 0) {
    ssize_t ignored = write(terminal.descriptor, terminal.leave, (size_t)terminal.leave_length);
    (void)ignored;
  }
  tcsetattr(terminal.descriptor, TCSANOW, &terminal.saved);
}

// A signal the program handles in its loop: its number, one byte, on the pipe.
static void report_signal(int signal_number) {
  int saved_errno = errno;
  if (terminal.signal_pipe >= 0) {
    unsigned char byte = (unsigned char)signal_number;
    ssize_t ignored = write(terminal.signal_pipe, &byte, 1);
    (void)ignored;
  }
  errno = saved_errno;
}

// A crash: the terminal back, then the signal again with its default action (SA_RESETHAND
// put it back), so the program ends as it would have, core dump and all.
static void crash_signal(int signal_number) {
  restore_terminal();
  raise(signal_number);
}

int registerd_terminal_arm(int descriptor, const struct termios *saved, const char *leave,
                           int leave_length, int pipe_descriptor) {
  if (leave_length < 0 || leave_length > (int)sizeof(terminal.leave)) {
    errno = EINVAL;
    return -1;
  }
  terminal.saved = *saved;
  for (int index = 0; index < leave_length; index++) terminal.leave[index] = leave[index];
  terminal.leave_length = leave_length;
  terminal.signal_pipe = pipe_descriptor;
  terminal.descriptor = descriptor;
  struct sigaction report;
  sigemptyset(&report.sa_mask);
  report.sa_flags = SA_RESTART;
  report.sa_handler = report_signal;
  const int reported[] = {SIGWINCH, SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  // A program may be started with signals blocked (the mask is inherited across exec): these
  // must come through, or a resize would never be seen.
  sigset_t unblock;
  sigemptyset(&unblock);
  for (unsigned index = 0; index < sizeof(reported) / sizeof(reported[0]); index++) {
    if (sigaction(reported[index], &report, NULL) != 0) return -1;
    sigaddset(&unblock, reported[index]);
  }
  if (sigprocmask(SIG_UNBLOCK, &unblock, NULL) != 0) return -1;
  struct sigaction crash;
  sigemptyset(&crash.sa_mask);
  crash.sa_flags = SA_RESETHAND | SA_NODEFER;
  crash.sa_handler = crash_signal;
  const int crashes[] = {SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE};
  for (unsigned index = 0; index < sizeof(crashes) / sizeof(crashes[0]); index++) {
    if (sigaction(crashes[index], &crash, NULL) != 0) return -1;
  }
  return 0;
}

void registerd_terminal_disarm(void) {
  restore_terminal();
  terminal.descriptor = -1;
  terminal.signal_pipe = -1;
}
