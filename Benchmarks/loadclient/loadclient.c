// loadclient: a small closed-loop load generator for Unix-domain stream sockets, used by
// Benchmarks/compare-redis.sh to drive registerd and Redis with the same client.
//
// It keeps C connections open, each with P requests in flight (pipelined): whenever replies
// arrive on a connection, as many new requests are written (in one write) as replies were read.
// After a warm-up it counts replies for a fixed time and reports requests/s and the latency of
// each request (time from the write that sent it to the read that completed its reply) at
// p50/p90/p99/p99.9. One thread, epoll, no allocation on the hot path beyond buffer growth.
//
//   loadclient --socket PATH --proto line|resp [--conns C] [--depth P] [--warmup S]
//              [--duration S] [--max-requests N] [--once] -- REQUEST...
//
// --proto line: REQUEST is one argument, sent followed by "\n"; a reply is one line, counted as
//   an error unless it carries "ok":true.
// --proto resp: REQUEST's arguments are one Redis command, sent as a RESP array; replies are
//   parsed minimally (+ - : $), "-" counted as an error.
// --once: send the request once on one connection, print the reply as received, and exit.
//
// Output (last line, for scripts):
//   result rps=N replies=N errors=N p50_us=X p90_us=X p99_us=X p999_us=X max_us=X
//
// Bounded: at most 1024 connections, 1024 in flight each, 120 s of warm-up plus measurement,
// and --max-requests replies (default unlimited within the time). It connects only to the one
// socket path it is given.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

enum proto { PROTO_LINE, PROTO_RESP };

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void die(const char *what) {
  fprintf(stderr, "loadclient: %s: %s\n", what, strerror(errno));
  exit(1);
}

static void fail(const char *message) {
  fprintf(stderr, "loadclient: %s\n", message);
  exit(2);
}

// ---- latency histogram: log-linear buckets, 64 per power of two (about 1.5% resolution) ----

#define SUB_BITS 6
#define SUB (1 << SUB_BITS)
#define BUCKETS (64 * SUB)
static uint64_t histogram[BUCKETS];
static uint64_t recorded, max_latency;

static int bucket_of(uint64_t v) {
  if (v < SUB) return (int)v;
  int e = 63 - __builtin_clzll(v);
  int mantissa = (int)((v >> (e - SUB_BITS)) & (SUB - 1));
  return (e - SUB_BITS + 1) * SUB + mantissa;
}

// The middle of a bucket's range, in nanoseconds.
static double bucket_value(int index) {
  if (index < SUB) return index;
  int e = index / SUB + SUB_BITS - 1;
  int mantissa = index % SUB;
  double low = (double)((uint64_t)(SUB + mantissa) << (e - SUB_BITS));
  double width = (double)(1ull << (e - SUB_BITS));
  return low + width / 2;
}

static void record(uint64_t latency) {
  histogram[bucket_of(latency)]++;
  recorded++;
  if (latency > max_latency) max_latency = latency;
}

static double percentile_us(double p) {
  if (recorded == 0) return 0;
  uint64_t rank = (uint64_t)ceil(p / 100.0 * (double)recorded);
  if (rank < 1) rank = 1;
  uint64_t seen = 0;
  for (int i = 0; i < BUCKETS; i++) {
    seen += histogram[i];
    if (seen >= rank) return bucket_value(i) / 1000.0;
  }
  return (double)max_latency / 1000.0;
}

// ---- connections ----

struct conn {
  int fd;
  char *in;  // received, not yet parsed
  size_t in_len, in_cap;
  char *out;  // to write
  size_t out_off, out_len, out_cap;
  uint64_t *sent;  // ring of send times of the requests in flight
  int head, inflight;
  int want_out;
};

static const char *request;  // the encoded request
static size_t request_len;
static enum proto proto;
static int depth = 1;
static uint64_t errors, replies_measured;
static int measuring;

static int connect_socket(const char *path) {
  struct sockaddr_un address;
  memset(&address, 0, sizeof address);
  address.sun_family = AF_UNIX;
  if (strlen(path) >= sizeof address.sun_path) fail("socket path too long");
  strcpy(address.sun_path, path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) die("socket");
  if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) die(path);
  return fd;
}

static void reserve(char **buffer, size_t *capacity, size_t needed) {
  if (needed <= *capacity) return;
  size_t capacity2 = *capacity ? *capacity : 4096;
  while (capacity2 < needed) capacity2 *= 2;
  char *grown = realloc(*buffer, capacity2);
  if (!grown) die("realloc");
  *buffer = grown;
  *capacity = capacity2;
}

// Queues n requests and stamps them with the time they are written.
static void queue_requests(struct conn *c, int n, uint64_t stamp) {
  if (c->out_off == c->out_len) {
    c->out_off = c->out_len = 0;
  } else if (c->out_off > 0) {
    memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
    c->out_len -= c->out_off;
    c->out_off = 0;
  }
  reserve(&c->out, &c->out_cap, c->out_len + (size_t)n * request_len);
  for (int i = 0; i < n; i++) {
    memcpy(c->out + c->out_len, request, request_len);
    c->out_len += request_len;
    c->sent[(c->head + c->inflight) % depth] = stamp;
    c->inflight++;
  }
}

// Writes what is queued; returns 1 if some is left for EPOLLOUT.
static int flush(struct conn *c) {
  while (c->out_off < c->out_len) {
    ssize_t n = write(c->fd, c->out + c->out_off, c->out_len - c->out_off);
    if (n > 0) {
      c->out_off += (size_t)n;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 1;
    die("write");
  }
  return 0;
}

// Length of one complete reply at the start of buf, 0 if incomplete. Sets *is_error.
static size_t reply_length(const char *buf, size_t len, int *is_error) {
  if (proto == PROTO_LINE) {
    const char *newline = memchr(buf, '\n', len);
    if (!newline) return 0;
    size_t n = (size_t)(newline - buf) + 1;
    // The envelope puts "ok" right after "id"; a short look suffices for any id we send (none).
    size_t look = n < 64 ? n : 64;
    *is_error = memmem(buf, look, "\"ok\":true", 9) == NULL;
    return n;
  }
  if (len < 3) return 0;
  const char *crlf = memmem(buf, len, "\r\n", 2);
  if (!crlf) return 0;
  size_t header = (size_t)(crlf - buf) + 2;
  switch (buf[0]) {
    case '+':
    case ':':
      *is_error = 0;
      return header;
    case '-':
      *is_error = 1;
      return header;
    case '$': {
      long size = strtol(buf + 1, NULL, 10);
      *is_error = size < 0;
      if (size < 0) return header;
      size_t total = header + (size_t)size + 2;
      return total <= len ? total : 0;
    }
    default:
      fail("unsupported RESP reply type");
  }
  return 0;
}

// Parses every complete reply; returns how many.
static int take_replies(struct conn *c, uint64_t stamp) {
  size_t offset = 0;
  int count = 0;
  for (;;) {
    int is_error = 0;
    size_t n = reply_length(c->in + offset, c->in_len - offset, &is_error);
    if (n == 0) break;
    offset += n;
    if (c->inflight == 0) fail("a reply arrived that no request asked for");
    uint64_t began = c->sent[c->head];
    c->head = (c->head + 1) % depth;
    c->inflight--;
    count++;
    if (measuring) {
      record(stamp - began);
      replies_measured++;
      if (is_error) errors++;
    }
  }
  if (offset > 0) {
    memmove(c->in, c->in + offset, c->in_len - offset);
    c->in_len -= offset;
  }
  return count;
}

// Reads what is there; returns replies completed, -1 on EOF.
static int read_replies(struct conn *c) {
  int total = 0;
  for (;;) {
    reserve(&c->in, &c->in_cap, c->in_len + 65536);
    size_t space = c->in_cap - c->in_len;
    ssize_t n = read(c->fd, c->in + c->in_len, space);
    if (n > 0) {
      c->in_len += (size_t)n;
      total += take_replies(c, now_ns());
      if ((size_t)n < space) return total;
      continue;
    }
    if (n == 0) return -1;
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return total;
    die("read");
  }
}

static char *encode_resp(int argc, char **argv, size_t *length) {
  size_t capacity = 32;
  for (int i = 0; i < argc; i++) capacity += strlen(argv[i]) + 32;
  char *buffer = malloc(capacity);
  if (!buffer) die("malloc");
  size_t n = (size_t)sprintf(buffer, "*%d\r\n", argc);
  for (int i = 0; i < argc; i++) {
    size_t size = strlen(argv[i]);
    n += (size_t)sprintf(buffer + n, "$%zu\r\n", size);
    memcpy(buffer + n, argv[i], size);
    n += size;
    memcpy(buffer + n, "\r\n", 2);
    n += 2;
  }
  *length = n;
  return buffer;
}

static double parse_number(const char *text, double low, double high, const char *flag) {
  char *end;
  double value = strtod(text, &end);
  if (*text == 0 || *end != 0 || !(value >= low && value <= high)) {
    fprintf(stderr, "loadclient: %s must be a number from %g to %g\n", flag, low, high);
    exit(2);
  }
  return value;
}

static void usage(void) {
  fprintf(stderr,
          "usage: loadclient --socket PATH --proto line|resp [--conns C] [--depth P] [--warmup S]\n"
          "                  [--duration S] [--max-requests N] [--once] -- REQUEST...\n");
  exit(2);
}

int main(int argc, char **argv) {
  const char *path = NULL;
  int conns = 1, once = 0, have_proto = 0;
  double warmup = 1, duration = 5, max_requests = 0;
  int i = 1;
  for (; i < argc; i++) {
    const char *flag = argv[i];
    if (strcmp(flag, "--") == 0) {
      i++;
      break;
    }
    if (strcmp(flag, "--once") == 0) {
      once = 1;
      continue;
    }
    if (i + 1 >= argc) usage();
    const char *value = argv[++i];
    if (strcmp(flag, "--socket") == 0) path = value;
    else if (strcmp(flag, "--proto") == 0) {
      have_proto = 1;
      if (strcmp(value, "line") == 0) proto = PROTO_LINE;
      else if (strcmp(value, "resp") == 0) proto = PROTO_RESP;
      else usage();
    } else if (strcmp(flag, "--conns") == 0) conns = (int)parse_number(value, 1, 1024, flag);
    else if (strcmp(flag, "--depth") == 0) depth = (int)parse_number(value, 1, 1024, flag);
    else if (strcmp(flag, "--warmup") == 0) warmup = parse_number(value, 0, 60, flag);
    else if (strcmp(flag, "--duration") == 0) duration = parse_number(value, 0.1, 60, flag);
    else if (strcmp(flag, "--max-requests") == 0) max_requests = parse_number(value, 0, 1e12, flag);
    else usage();
  }
  if (!path || !have_proto || i >= argc) usage();
  if (proto == PROTO_LINE) {
    if (argc - i != 1) fail("--proto line takes the request as one argument");
    size_t size = strlen(argv[i]);
    char *line = malloc(size + 1);
    if (!line) die("malloc");
    memcpy(line, argv[i], size);
    line[size] = '\n';
    request = line;
    request_len = size + 1;
  } else {
    request = encode_resp(argc - i, argv + i, &request_len);
  }

  if (once) {
    depth = 1;
    struct conn c = {.fd = connect_socket(path)};
    uint64_t slot;
    c.sent = &slot;
    queue_requests(&c, 1, now_ns());
    while (flush(&c)) usleep(1000);
    measuring = 1;
    uint64_t deadline = now_ns() + 10000000000ull;
    while (replies_measured == 0) {
      reserve(&c.in, &c.in_cap, c.in_len + 65536);
      ssize_t n = read(c.fd, c.in + c.in_len, c.in_cap - c.in_len);
      if (n == 0) fail("the server closed the connection");
      if (n < 0 && errno != EINTR) die("read");
      if (n > 0) {
        fwrite(c.in + c.in_len, 1, (size_t)n, stdout);
        c.in_len += (size_t)n;
        take_replies(&c, now_ns());
      }
      if (now_ns() > deadline) fail("no reply within 10 s");
    }
    return errors ? 1 : 0;
  }

  int epoll = epoll_create1(EPOLL_CLOEXEC);
  if (epoll < 0) die("epoll_create1");
  struct conn *all = calloc((size_t)conns, sizeof *all);
  if (!all) die("calloc");
  for (int k = 0; k < conns; k++) {
    struct conn *c = &all[k];
    c->fd = connect_socket(path);
    if (fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK) != 0) die("fcntl");
    c->sent = calloc((size_t)depth, sizeof *c->sent);
    if (!c->sent) die("calloc");
    struct epoll_event event = {.events = EPOLLIN, .data.ptr = c};
    if (epoll_ctl(epoll, EPOLL_CTL_ADD, c->fd, &event) != 0) die("epoll_ctl");
  }
  uint64_t start = now_ns();
  uint64_t measure_from = start + (uint64_t)(warmup * 1e9);
  uint64_t stop_at = measure_from + (uint64_t)(duration * 1e9);
  for (int k = 0; k < conns; k++) {
    queue_requests(&all[k], depth, now_ns());
    if (flush(&all[k])) {
      all[k].want_out = 1;
      struct epoll_event event = {.events = EPOLLIN | EPOLLOUT, .data.ptr = &all[k]};
      epoll_ctl(epoll, EPOLL_CTL_MOD, all[k].fd, &event);
    }
  }
  struct epoll_event events[256];
  uint64_t measured_from = 0, last_progress = start;
  for (;;) {
    uint64_t t = now_ns();
    if (!measuring && t >= measure_from) {
      measuring = 1;
      measured_from = t;
    }
    if (t >= stop_at) break;
    if (max_requests > 0 && (double)replies_measured >= max_requests) break;
    if (t - last_progress > 10000000000ull) fail("no reply for 10 s");
    int ready = epoll_wait(epoll, events, 256, 100);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) die("epoll_wait");
    for (int k = 0; k < ready; k++) {
      struct conn *c = events[k].data.ptr;
      if (events[k].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
        int got = read_replies(c);
        if (got < 0) fail("the server closed a connection");
        if (got > 0) {
          last_progress = now_ns();
          // Replace each completed request so that P stay in flight.
          queue_requests(c, got, now_ns());
        }
      }
      int pending = flush(c);
      if (pending != c->want_out) {
        c->want_out = pending;
        struct epoll_event event = {.events = EPOLLIN | (pending ? EPOLLOUT : 0), .data.ptr = c};
        if (epoll_ctl(epoll, EPOLL_CTL_MOD, c->fd, &event) != 0) die("epoll_ctl");
      }
    }
  }
  uint64_t elapsed = now_ns() - measured_from;
  double seconds = measuring && elapsed > 0 ? (double)elapsed / 1e9 : 0;
  double rps = seconds > 0 ? (double)replies_measured / seconds : 0;
  fprintf(stderr,
          "loadclient: %d conns x %d in flight, %.1f s: %" PRIu64 " replies (%" PRIu64
          " errors), %.0f req/s\n",
          conns, depth, seconds, replies_measured, errors, rps);
  printf("result rps=%.0f replies=%" PRIu64 " errors=%" PRIu64
         " p50_us=%.1f p90_us=%.1f p99_us=%.1f p999_us=%.1f max_us=%.1f\n",
         rps, replies_measured, errors, percentile_us(50), percentile_us(90), percentile_us(99),
         percentile_us(99.9), (double)max_latency / 1000.0);
  for (int k = 0; k < conns; k++) close(all[k].fd);
  return errors ? 1 : 0;
}
