// The claim library: loaded into every process of the sandbox (/etc/ld.so.preload), it appends one line
// to the claim log for every call through which a process changed a path, so the host can tell an
// action's changes to a granted folder from the person's edits made meanwhile (main/sandbox/claims.ts,
// docs/ARCHITECTURE.md "Attribution"). It is a claim, not a wall: code making raw system calls is not
// seen, which errs toward keeping its changes. Above all it must never break or slow a program: every
// real call runs exactly as asked, its result and errno are handed back untouched, and when the log
// cannot be opened the library does nothing at all.
//
// Log: $POSTHOC_CLAIMS_LOG, else /tmp/.posthoc/claims; opened once per process image (O_APPEND,
// O_CLOEXEC, moved to a high fd so shells' fds 3..9 stay free), only if it already exists. Each record is
// one write() of one line, so lines of concurrent processes never interleave:
//   OP \t INO \t SIZE \t MTIME_NS \t ISDIR \t PATH \n
//   W  opened, created or truncated for writing (stamp just after the call)
//   C  a descriptor open for writing was closed (stamp just before; path from /proc/self/fd)
//   N  a name now holds what the call made: rename target, new link, mkdir, chmod (stamp from lstat)
//   G  a name is gone: unlink, rmdir, rename source (stamp fields 0)
// PATH is absolute and lexically normalised; '%', TAB, LF and CR are written %25 %09 %0A %0D. A path
// longer than 2*PATH_MAX is cut and ends in "%!" (not a valid escape), which the parser drops.
//
// Descriptors open for writing (fds < 65536) are kept in a bitmap so that close(), dup2() over them,
// fclose() and the process's exit can say what the file finally held; descriptors inherited across
// exec are found again at load from /proc/self/fd.
//
// Portability: compiled on the host when the image is built (cc -shared -fPIC -O2 -Wall -Wextra -o
// posthoc-claims.so claims-preload.c -ldl) and loaded under Debian bookworm's glibc 2.36. It uses only
// dlsym, syscall(), getenv, fileno and fflush_unlocked (all in glibc 2.36 with the same symbol versions);
// the logging path itself uses raw system calls and stack buffers only (no malloc, no stdio, no locks),
// so it is thread-safe and async-signal-safe. It needs about 8.5 KB of stack per record.
#define _GNU_SOURCE
#undef _FORTIFY_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

#define LOG_UNKNOWN (-2)   // not opened yet in this image (or our fd was closed by the program)
#define LOG_OFF (-1)       // no log: the library is inert
#define MAX_TRACKED_FD 65536
#define PATH_LIMIT (2 * PATH_MAX)
#define HDR_ROOM 96
#define DEFAULT_LOG "/tmp/.posthoc/claims"

static int log_fd = LOG_UNKNOWN;
static dev_t log_dev;
static ino_t log_ino;
static char log_path[PATH_MAX];
static int log_path_ready;
static uint64_t write_fds[MAX_TRACKED_FD / 64];

// ---- the real functions ----------------------------------------------------------------------------

int __open_2(const char *, int);
int __open64_2(const char *, int);
int __openat_2(int, const char *, int);
int __openat64_2(int, const char *, int);
int fcntl64(int, int, ...);

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef int (*open2_fn)(const char *, int);
typedef int (*openat2_fn)(int, const char *, int);
typedef int (*creat_fn)(const char *, mode_t);
typedef FILE *(*fopen_fn)(const char *, const char *);
typedef FILE *(*freopen_fn)(const char *, const char *, FILE *);
typedef int (*truncate_fn)(const char *, off_t);
typedef int (*path_fn)(const char *);
typedef int (*path2_fn)(const char *, const char *);
typedef int (*pathmode_fn)(const char *, mode_t);
typedef int (*at_path_flags_fn)(int, const char *, int);
typedef int (*at_pathmode_fn)(int, const char *, mode_t);
typedef int (*at_pathmode_flags_fn)(int, const char *, mode_t, int);
typedef int (*renameat_fn)(int, const char *, int, const char *);
typedef int (*renameat2_fn)(int, const char *, int, const char *, unsigned int);
typedef int (*linkat_fn)(int, const char *, int, const char *, int);
typedef int (*symlinkat_fn)(const char *, int, const char *);
typedef int (*fd_fn)(int);
typedef int (*fd2_fn)(int, int);
typedef int (*fd2flags_fn)(int, int, int);
typedef int (*fcntl_fn)(int, int, ...);
typedef int (*fclose_fn)(FILE *);
typedef int (*void_fn)(void);

// Looked up on first use (or at load); a racing second lookup stores the same pointer.
#define REAL(type, name)                                                                                  \
  static type real_##name(void) {                                                                         \
    static type cached;                                                                                   \
    type fn = __atomic_load_n(&cached, __ATOMIC_RELAXED);                                                 \
    if (!fn) {                                                                                            \
      fn = (type)dlsym(RTLD_NEXT, #name);                                                                 \
      __atomic_store_n(&cached, fn, __ATOMIC_RELAXED);                                                    \
    }                                                                                                     \
    return fn;                                                                                            \
  }
REAL(open_fn, open)
REAL(open_fn, open64)
REAL(openat_fn, openat)
REAL(openat_fn, openat64)
REAL(open2_fn, __open_2)
REAL(open2_fn, __open64_2)
REAL(openat2_fn, __openat_2)
REAL(openat2_fn, __openat64_2)
REAL(creat_fn, creat)
REAL(creat_fn, creat64)
REAL(fopen_fn, fopen)
REAL(fopen_fn, fopen64)
REAL(freopen_fn, freopen)
REAL(freopen_fn, freopen64)
REAL(truncate_fn, truncate)
REAL(truncate_fn, truncate64)
REAL(path2_fn, rename)
REAL(renameat_fn, renameat)
REAL(renameat2_fn, renameat2)
REAL(path_fn, unlink)
REAL(at_path_flags_fn, unlinkat)
REAL(path_fn, rmdir)
REAL(pathmode_fn, mkdir)
REAL(at_pathmode_fn, mkdirat)
REAL(path2_fn, link)
REAL(linkat_fn, linkat)
REAL(path2_fn, symlink)
REAL(symlinkat_fn, symlinkat)
REAL(pathmode_fn, chmod)
REAL(at_pathmode_flags_fn, fchmodat)
REAL(fd_fn, close)
REAL(fd_fn, dup)
REAL(fd2_fn, dup2)
REAL(fd2flags_fn, dup3)
REAL(fcntl_fn, fcntl)
REAL(fcntl_fn, fcntl64)
REAL(fclose_fn, fclose)
REAL(void_fn, fcloseall)

// A missing real function (never under glibc 2.36) fails the call rather than crashing the program.
#define CALL(name, ...) (real_##name() ? real_##name()(__VA_ARGS__) : (errno = ENOSYS, -1))

// ---- the write-fd bitmap ---------------------------------------------------------------------------

static int fd_tracked(int fd) {
  if (fd < 0 || fd >= MAX_TRACKED_FD) return 0;
  return (__atomic_load_n(&write_fds[fd >> 6], __ATOMIC_RELAXED) >> (fd & 63)) & 1;
}

static void fd_track(int fd, int on) {
  if (fd < 0 || fd >= MAX_TRACKED_FD) return;
  uint64_t bit = 1ULL << (fd & 63);
  if (on) __atomic_fetch_or(&write_fds[fd >> 6], bit, __ATOMIC_RELAXED);
  else if (fd_tracked(fd)) __atomic_fetch_and(&write_fds[fd >> 6], ~bit, __ATOMIC_RELAXED);
}

// ---- the log ----------------------------------------------------------------------------------------

static void capture_log_path(void) {
  if (__atomic_load_n(&log_path_ready, __ATOMIC_ACQUIRE)) return;
  const char *p = getenv("POSTHOC_CLAIMS_LOG");
  if (!p || !*p) p = DEFAULT_LOG;
  size_t n = strlen(p);
  if (n >= sizeof log_path) n = 0; // an unusable name: open("") fails and the library stays inert
  memcpy(log_path, p, n);
  log_path[n] = 0;
  __atomic_store_n(&log_path_ready, 1, __ATOMIC_RELEASE);
}

// The lowest fd the log may take: well above the fds shells and programs pick by number.
static int high_fd_floor(void) {
  struct rlimit lim;
  if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &lim) != 0) return 10;
  rlim_t floor = lim.rlim_cur == RLIM_INFINITY ? 1536 : lim.rlim_cur / 2;
  if (floor > 1536) floor = 1536;
  return floor < 10 ? 10 : (int)floor;
}

static int log_get(void) {
  int fd = __atomic_load_n(&log_fd, __ATOMIC_ACQUIRE);
  if (fd != LOG_UNKNOWN) return fd;
  capture_log_path();
  int opened = (int)syscall(SYS_openat, AT_FDCWD, log_path, O_WRONLY | O_APPEND | O_CLOEXEC);
  int expected = LOG_UNKNOWN;
  if (opened < 0) {
    __atomic_compare_exchange_n(&log_fd, &expected, LOG_OFF, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    return __atomic_load_n(&log_fd, __ATOMIC_ACQUIRE);
  }
  int high = (int)syscall(SYS_fcntl, opened, F_DUPFD_CLOEXEC, high_fd_floor());
  if (high >= 0) {
    syscall(SYS_close, opened);
    opened = high;
  }
  struct stat st;
  if (syscall(SYS_fstat, opened, &st) != 0) {
    syscall(SYS_close, opened);
    return LOG_OFF;
  }
  // Racing openers see the same file, so storing its identity twice is harmless.
  __atomic_store_n(&log_dev, st.st_dev, __ATOMIC_RELAXED);
  __atomic_store_n(&log_ino, st.st_ino, __ATOMIC_RELAXED);
  if (!__atomic_compare_exchange_n(&log_fd, &expected, opened, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    syscall(SYS_close, opened);
    return expected;
  }
  return opened;
}

// The program closed or replaced our descriptor: open the log again on the next record.
static void log_fd_lost(int fd) {
  int expected = fd;
  if (fd >= 0) __atomic_compare_exchange_n(&log_fd, &expected, LOG_UNKNOWN, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

// Appends one line, after checking the fd still is the log (a program may have closed it and reused its
// number for a file of its own, which must never receive our lines).
static void log_write(const char *line, size_t len) {
  for (int attempt = 0; attempt < 2; attempt++) {
    int fd = log_get();
    if (fd < 0) return;
    struct stat st;
    if (syscall(SYS_fstat, fd, &st) == 0 && st.st_ino == __atomic_load_n(&log_ino, __ATOMIC_RELAXED) &&
        st.st_dev == __atomic_load_n(&log_dev, __ATOMIC_RELAXED)) {
      syscall(SYS_write, fd, line, len);
      return;
    }
    log_fd_lost(fd);
  }
}

// ---- records ------------------------------------------------------------------------------------------

// One line under construction: the path is built at buf + HDR_ROOM, the header is put right before it.
typedef struct {
  char buf[HDR_ROOM + PATH_LIMIT + 4];
  size_t len;
  int cut;
} record_t;

#define REC_PATH(r) ((r)->buf + HDR_ROOM)

static size_t append(record_t *r, const char *s, size_t n) {
  size_t room = PATH_LIMIT - r->len;
  if (n > room) {
    n = room;
    r->cut = 1;
  }
  memcpy(REC_PATH(r) + r->len, s, n);
  r->len += n;
  return n;
}

// Lexical normalisation in place: '.', '..' and repeated slashes go; the result starts with '/'.
static void normalise(record_t *r) {
  char *p = REC_PATH(r);
  size_t n = r->len, out = 0, i = 0;
  while (i < n) {
    while (i < n && p[i] == '/') i++;
    if (i >= n) break;
    size_t start = i;
    while (i < n && p[i] != '/') i++;
    size_t len = i - start;
    if (len == 1 && p[start] == '.') continue;
    if (len == 2 && p[start] == '.' && p[start + 1] == '.') {
      while (out > 0 && p[out - 1] != '/') out--;
      if (out > 0) out--;
      continue;
    }
    p[out++] = '/';
    memmove(p + out, p + start, len);
    out += len;
  }
  if (out == 0) p[out++] = '/';
  r->len = out;
}

static size_t fd_link(int fd, char *out, size_t size) {
  char proc[32] = "/proc/self/fd/";
  char digits[12];
  int n = 0;
  unsigned v = (unsigned)fd;
  do digits[n++] = (char)('0' + v % 10); while ((v /= 10) && n < 11);
  size_t at = 14;
  while (n > 0) proc[at++] = digits[--n];
  proc[at] = 0;
  long got = syscall(SYS_readlinkat, AT_FDCWD, proc, out, size);
  return got > 0 && out[0] == '/' ? (size_t)got : 0;
}

// Builds the absolute path of (dirfd, path) into r; 0 when it cannot be known (unlinked cwd, odd dirfd).
static int resolve(record_t *r, int dirfd, const char *path) {
  r->len = 0;
  r->cut = 0;
  if (!path) return 0;
  if (path[0] != '/') {
    if (dirfd == AT_FDCWD) {
      long got = syscall(SYS_getcwd, REC_PATH(r), (size_t)PATH_LIMIT);
      if (got <= 1 || REC_PATH(r)[0] != '/') return 0;
      r->len = (size_t)got - 1; // the kernel counts the terminating NUL
    } else {
      size_t got = fd_link(dirfd, REC_PATH(r), PATH_LIMIT);
      if (!got || got >= PATH_LIMIT) return 0;
      r->len = got;
    }
    append(r, "/", 1);
  }
  append(r, path, strlen(path));
  normalise(r);
  return 1;
}

static int is_special(unsigned char c) { return c == '%' || c == '\t' || c == '\n' || c == '\r'; }

static char *put_decimal(char *at, uint64_t v, int negative) {
  char digits[24];
  int n = 0;
  do digits[n++] = (char)('0' + v % 10); while (v /= 10);
  if (negative) *at++ = '-';
  while (n > 0) *at++ = digits[--n];
  return at;
}

// Escapes the path in place (backwards, since it only grows), adds the header and writes the line.
static void emit(record_t *r, char op, const struct stat *st, int dir) {
  static const char hex[] = "0123456789ABCDEF";
  char *p = REC_PATH(r);
  size_t limit = PATH_LIMIT - 2, encoded = 0, keep = 0;
  int cut = r->cut;
  for (size_t i = 0; i < r->len; i++) {
    size_t w = is_special((unsigned char)p[i]) ? 3 : 1;
    if (encoded + w > limit) {
      cut = 1;
      break;
    }
    encoded += w;
    keep = i + 1;
  }
  for (size_t i = keep, j = encoded; i-- > 0;) {
    unsigned char c = (unsigned char)p[i];
    if (is_special(c)) {
      p[--j] = hex[c & 15];
      p[--j] = hex[c >> 4];
      p[--j] = '%';
    } else {
      p[--j] = (char)c;
    }
  }
  if (cut) {
    p[encoded++] = '%';
    p[encoded++] = '!';
  }
  p[encoded++] = '\n';

  char head[HDR_ROOM];
  char *h = head;
  *h++ = op;
  *h++ = '\t';
  int64_t mtime = st ? (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec : 0;
  h = put_decimal(h, st ? (uint64_t)st->st_ino : 0, 0);
  *h++ = '\t';
  h = put_decimal(h, st ? (uint64_t)st->st_size : 0, 0);
  *h++ = '\t';
  h = put_decimal(h, mtime < 0 ? (uint64_t)0 - (uint64_t)mtime : (uint64_t)mtime, mtime < 0);
  *h++ = '\t';
  *h++ = dir ? '1' : '0';
  *h++ = '\t';
  size_t hlen = (size_t)(h - head);
  memcpy(p - hlen, head, hlen);
  log_write(p - hlen, hlen + encoded);
}

static int stat_fd(int fd, struct stat *st) { return syscall(SYS_fstat, fd, st) == 0; }

static int lstat_at(int dirfd, const char *path, struct stat *st) {
  return syscall(SYS_newfstatat, dirfd, path, st, AT_SYMLINK_NOFOLLOW) == 0;
}

static int open_for_writing(int fd) {
  long fl = syscall(SYS_fcntl, fd, F_GETFL);
  return fl >= 0 && (fl & O_ACCMODE) != O_RDONLY;
}

// W: a path was opened for writing; its fd is remembered for the C record at close.
static void opened(int fd, int flags, int dirfd, const char *path) {
  if (fd < 0) return;
  int writes = (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC));
  if (!writes || (flags & O_PATH) || log_get() < 0) {
    fd_track(fd, 0);
    return;
  }
  struct stat st;
  if (!stat_fd(fd, &st) || !S_ISREG(st.st_mode)) { // devices, fifos and the like change no folder
    fd_track(fd, 0);
    return;
  }
  fd_track(fd, 1);
  if ((flags & O_TMPFILE) == O_TMPFILE) return; // nameless until linkat(), which is an N record
  record_t r;
  if (resolve(&r, dirfd, path)) emit(&r, 'W', &st, 0);
}

// Programs close copies of one descriptor many times (a shell's saved stdout, an interpreter probing
// fd 2): a C record the same as this process's last one for that file says nothing new. One 64-bit
// fingerprint per slot, so racing threads can only cause a repeated line, never a lost one.
static uint64_t last_closed[64];

static int seen_before(const record_t *r, const struct stat *st) {
  uint64_t h = 1469598103934665603ULL;
  const unsigned char *p = (const unsigned char *)REC_PATH(r);
  for (size_t i = 0; i < r->len; i++) h = (h ^ p[i]) * 1099511628211ULL;
  uint64_t parts[5] = {(uint64_t)st->st_dev, (uint64_t)st->st_ino, (uint64_t)st->st_size, (uint64_t)st->st_mtim.tv_sec,
                       (uint64_t)st->st_mtim.tv_nsec};
  for (int i = 0; i < 5; i++) h = (h ^ parts[i]) * 1099511628211ULL;
  uint64_t *slot = &last_closed[st->st_ino & 63];
  if (__atomic_load_n(slot, __ATOMIC_RELAXED) == h) return 1;
  __atomic_store_n(slot, h, __ATOMIC_RELAXED);
  return 0;
}

// C: fd, open for writing, is about to be closed (or was duplicated to probe, when the close flushes).
static void closing(int fd) {
  struct stat st, named;
  if (!stat_fd(fd, &st) || !S_ISREG(st.st_mode) || st.st_nlink == 0 || !open_for_writing(fd)) return;
  record_t r;
  r.cut = 0;
  r.len = fd_link(fd, REC_PATH(&r), PATH_LIMIT);
  if (!r.len || r.len >= PATH_LIMIT) return;
  REC_PATH(&r)[r.len] = 0;
  // The name must still lead to this file (not "x (deleted)" or a name reused since).
  if (!lstat_at(AT_FDCWD, REC_PATH(&r), &named) || named.st_ino != st.st_ino || named.st_dev != st.st_dev) return;
  if (seen_before(&r, &st)) return;
  emit(&r, 'C', &st, 0);
}

// N (or G when the name is already gone again): a name now holds what the call made.
static void named(int dirfd, const char *path) {
  record_t r;
  struct stat st;
  if (!resolve(&r, dirfd, path)) return;
  if (lstat_at(dirfd, path, &st)) emit(&r, 'N', &st, S_ISDIR(st.st_mode));
  else emit(&r, 'G', NULL, 0);
}

static void gone(int dirfd, const char *path, int dir) {
  record_t r;
  if (resolve(&r, dirfd, path)) emit(&r, 'G', NULL, dir);
}

static void renamed(int olddir, const char *from, int newdir, const char *to, unsigned flags) {
  struct stat st;
  int have = lstat_at(newdir, to, &st);
  if (flags & RENAME_EXCHANGE) named(olddir, from);
  else gone(olddir, from, have && S_ISDIR(st.st_mode));
  named(newdir, to);
}

// ---- intercepted calls ------------------------------------------------------------------------------
// Pattern: call the real function, keep its errno, record only on success, hand errno back.

static int needs_mode(int flags) { return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE; }

#define MODE_ARG(flags)                                                                                   \
  mode_t mode = 0;                                                                                        \
  if (needs_mode(flags)) {                                                                                \
    va_list ap;                                                                                           \
    va_start(ap, flags);                                                                                  \
    mode = (mode_t)va_arg(ap, int);                                                                       \
    va_end(ap);                                                                                           \
  }

#define AFTER_OPEN(fd, flags, dirfd, path)                                                                \
  do {                                                                                                    \
    int saved = errno;                                                                                    \
    opened(fd, flags, dirfd, path);                                                                       \
    errno = saved;                                                                                        \
  } while (0)

int open(const char *path, int flags, ...) {
  MODE_ARG(flags)
  int fd = CALL(open, path, flags, mode);
  AFTER_OPEN(fd, flags, AT_FDCWD, path);
  return fd;
}

int open64(const char *path, int flags, ...) {
  MODE_ARG(flags)
  int fd = CALL(open64, path, flags, mode);
  AFTER_OPEN(fd, flags, AT_FDCWD, path);
  return fd;
}

int openat(int dirfd, const char *path, int flags, ...) {
  MODE_ARG(flags)
  int fd = CALL(openat, dirfd, path, flags, mode);
  AFTER_OPEN(fd, flags, dirfd, path);
  return fd;
}

int openat64(int dirfd, const char *path, int flags, ...) {
  MODE_ARG(flags)
  int fd = CALL(openat64, dirfd, path, flags, mode);
  AFTER_OPEN(fd, flags, dirfd, path);
  return fd;
}

int __open_2(const char *path, int flags) {
  int fd = CALL(__open_2, path, flags);
  AFTER_OPEN(fd, flags, AT_FDCWD, path);
  return fd;
}

int __open64_2(const char *path, int flags) {
  int fd = CALL(__open64_2, path, flags);
  AFTER_OPEN(fd, flags, AT_FDCWD, path);
  return fd;
}

int __openat_2(int dirfd, const char *path, int flags) {
  int fd = CALL(__openat_2, dirfd, path, flags);
  AFTER_OPEN(fd, flags, dirfd, path);
  return fd;
}

int __openat64_2(int dirfd, const char *path, int flags) {
  int fd = CALL(__openat64_2, dirfd, path, flags);
  AFTER_OPEN(fd, flags, dirfd, path);
  return fd;
}

int creat(const char *path, mode_t mode) {
  int fd = CALL(creat, path, mode);
  AFTER_OPEN(fd, O_CREAT | O_WRONLY | O_TRUNC, AT_FDCWD, path);
  return fd;
}

int creat64(const char *path, mode_t mode) {
  int fd = CALL(creat64, path, mode);
  AFTER_OPEN(fd, O_CREAT | O_WRONLY | O_TRUNC, AT_FDCWD, path);
  return fd;
}

// fopen's mode as open flags: w, a or + before any ",ccs=" suffix means writing.
static int stream_flags(const char *mode) {
  for (const char *m = mode; m && *m && *m != ','; m++)
    if (*m == 'w' || *m == 'a' || *m == '+') return O_WRONLY;
  return O_RDONLY;
}

static void stream_opened(FILE *f, const char *mode, const char *path) {
  if (!f) return;
  int saved = errno;
  opened(fileno(f), stream_flags(mode), AT_FDCWD, path);
  errno = saved;
}

FILE *fopen(const char *path, const char *mode) {
  FILE *f = real_fopen() ? real_fopen()(path, mode) : (errno = ENOSYS, NULL);
  stream_opened(f, mode, path);
  return f;
}

FILE *fopen64(const char *path, const char *mode) {
  FILE *f = real_fopen64() ? real_fopen64()(path, mode) : (errno = ENOSYS, NULL);
  stream_opened(f, mode, path);
  return f;
}

// A stream's close flushes first, so its C record is taken from a duplicate after the real close.
static int probe_stream(FILE *f) {
  int fd = f ? fileno(f) : -1;
  if (fd < 0 || log_get() < 0 || !open_for_writing(fd)) return -1;
  return (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 0);
}

static void probe_closed(int probe) {
  if (probe < 0) return;
  closing(probe);
  syscall(SYS_close, probe);
}

static FILE *reopen(freopen_fn real, const char *path, const char *mode, FILE *f) {
  int saved = errno;
  int old = f ? fileno(f) : -1;
  int probe = probe_stream(f);
  errno = saved;
  FILE *g = real ? real(path, mode, f) : (errno = ENOSYS, NULL);
  saved = errno;
  fd_track(old, 0);
  probe_closed(probe);
  if (g) {
    record_t r;
    int fd = fileno(g);
    if (path) opened(fd, stream_flags(mode), AT_FDCWD, path);
    else if ((r.len = fd_link(fd, REC_PATH(&r), PATH_LIMIT)) && r.len < PATH_LIMIT) {
      REC_PATH(&r)[r.len] = 0;
      opened(fd, stream_flags(mode), AT_FDCWD, REC_PATH(&r));
    }
  }
  errno = saved;
  return g;
}

FILE *freopen(const char *path, const char *mode, FILE *f) { return reopen(real_freopen(), path, mode, f); }

FILE *freopen64(const char *path, const char *mode, FILE *f) { return reopen(real_freopen64(), path, mode, f); }

int fclose(FILE *f) {
  int saved = errno;
  int fd = f ? fileno(f) : -1;
  int probe = probe_stream(f);
  errno = saved;
  int rc = CALL(fclose, f);
  saved = errno;
  fd_track(fd, 0);
  probe_closed(probe);
  errno = saved;
  return rc;
}

int fcloseall(void) {
  int saved = errno;
  if (log_get() >= 0) {
    fflush(NULL); // what fcloseall does first anyway, so the C stamps below are final
    for (int fd = 0; fd < MAX_TRACKED_FD; fd++)
      if (fd_tracked(fd)) closing(fd);
  }
  errno = saved;
  int rc = CALL(fcloseall);
  saved = errno;
  for (int fd = 0; fd < MAX_TRACKED_FD; fd++)
    if (fd_tracked(fd) && syscall(SYS_fcntl, fd, F_GETFD) < 0) fd_track(fd, 0);
  errno = saved;
  return rc;
}

int close(int fd) {
  int saved = errno;
  if (fd >= 0 && fd == __atomic_load_n(&log_fd, __ATOMIC_ACQUIRE)) log_fd_lost(fd);
  if (fd_tracked(fd)) {
    if (log_get() >= 0) closing(fd);
    fd_track(fd, 0);
  }
  errno = saved;
  return CALL(close, fd);
}

// dup2/dup3 close their target first: that is a C record; the copy inherits the source's tracking.
static void before_dup_over(int oldfd, int newfd) {
  if (oldfd == newfd) return;
  int saved = errno;
  if (newfd >= 0 && newfd == __atomic_load_n(&log_fd, __ATOMIC_ACQUIRE)) log_fd_lost(newfd);
  if (fd_tracked(newfd) && log_get() >= 0) closing(newfd);
  errno = saved;
}

static void duplicated(int oldfd, int newfd) {
  if (newfd < 0 || newfd == oldfd) return;
  fd_track(newfd, fd_tracked(oldfd));
}

int dup(int oldfd) {
  int fd = CALL(dup, oldfd);
  duplicated(oldfd, fd);
  return fd;
}

int dup2(int oldfd, int newfd) {
  before_dup_over(oldfd, newfd);
  int fd = CALL(dup2, oldfd, newfd);
  duplicated(oldfd, fd);
  return fd;
}

int dup3(int oldfd, int newfd, int flags) {
  before_dup_over(oldfd, newfd);
  int fd = CALL(dup3, oldfd, newfd, flags);
  duplicated(oldfd, fd);
  return fd;
}

// fcntl's third argument is an int or a pointer; passing it on as a pointer keeps either intact.
#define FCNTL_BODY(name)                                                                                  \
  va_list ap;                                                                                             \
  va_start(ap, cmd);                                                                                      \
  void *arg = va_arg(ap, void *);                                                                         \
  va_end(ap);                                                                                             \
  int rc = CALL(name, fd, cmd, arg);                                                                      \
  if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) duplicated(fd, rc);                                       \
  return rc;

int fcntl(int fd, int cmd, ...) { FCNTL_BODY(fcntl) }

int fcntl64(int fd, int cmd, ...) { FCNTL_BODY(fcntl64) }

int truncate(const char *path, off_t length) {
  int rc = CALL(truncate, path, length);
  if (rc == 0 && log_get() >= 0) {
    int saved = errno;
    struct stat st;
    record_t r;
    if (syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0) == 0 && resolve(&r, AT_FDCWD, path)) emit(&r, 'W', &st, 0);
    errno = saved;
  }
  return rc;
}

int truncate64(const char *path, off_t length) {
  int rc = CALL(truncate64, path, length);
  if (rc == 0 && log_get() >= 0) {
    int saved = errno;
    struct stat st;
    record_t r;
    if (syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0) == 0 && resolve(&r, AT_FDCWD, path)) emit(&r, 'W', &st, 0);
    errno = saved;
  }
  return rc;
}

// Records after a successful path call, errno kept.
#define RECORD_IF(rc, stmt)                                                                               \
  do {                                                                                                    \
    if ((rc) == 0 && log_get() >= 0) {                                                                    \
      int saved = errno;                                                                                  \
      stmt;                                                                                               \
      errno = saved;                                                                                      \
    }                                                                                                     \
  } while (0)

int rename(const char *from, const char *to) {
  int rc = CALL(rename, from, to);
  RECORD_IF(rc, renamed(AT_FDCWD, from, AT_FDCWD, to, 0));
  return rc;
}

int renameat(int olddir, const char *from, int newdir, const char *to) {
  int rc = CALL(renameat, olddir, from, newdir, to);
  RECORD_IF(rc, renamed(olddir, from, newdir, to, 0));
  return rc;
}

int renameat2(int olddir, const char *from, int newdir, const char *to, unsigned int flags) {
  int rc = CALL(renameat2, olddir, from, newdir, to, flags);
  RECORD_IF(rc, renamed(olddir, from, newdir, to, flags));
  return rc;
}

int unlink(const char *path) {
  int rc = CALL(unlink, path);
  RECORD_IF(rc, gone(AT_FDCWD, path, 0));
  return rc;
}

int unlinkat(int dirfd, const char *path, int flags) {
  int rc = CALL(unlinkat, dirfd, path, flags);
  RECORD_IF(rc, gone(dirfd, path, (flags & AT_REMOVEDIR) != 0));
  return rc;
}

int rmdir(const char *path) {
  int rc = CALL(rmdir, path);
  RECORD_IF(rc, gone(AT_FDCWD, path, 1));
  return rc;
}

int mkdir(const char *path, mode_t mode) {
  int rc = CALL(mkdir, path, mode);
  RECORD_IF(rc, named(AT_FDCWD, path));
  return rc;
}

int mkdirat(int dirfd, const char *path, mode_t mode) {
  int rc = CALL(mkdirat, dirfd, path, mode);
  RECORD_IF(rc, named(dirfd, path));
  return rc;
}

int link(const char *from, const char *to) {
  int rc = CALL(link, from, to);
  RECORD_IF(rc, named(AT_FDCWD, to));
  return rc;
}

int linkat(int olddir, const char *from, int newdir, const char *to, int flags) {
  int rc = CALL(linkat, olddir, from, newdir, to, flags);
  RECORD_IF(rc, named(newdir, to));
  return rc;
}

int symlink(const char *target, const char *path) {
  int rc = CALL(symlink, target, path);
  RECORD_IF(rc, named(AT_FDCWD, path));
  return rc;
}

int symlinkat(const char *target, int dirfd, const char *path) {
  int rc = CALL(symlinkat, target, dirfd, path);
  RECORD_IF(rc, named(dirfd, path));
  return rc;
}

int chmod(const char *path, mode_t mode) {
  int rc = CALL(chmod, path, mode);
  RECORD_IF(rc, named(AT_FDCWD, path));
  return rc;
}

int fchmodat(int dirfd, const char *path, mode_t mode, int flags) {
  int rc = CALL(fchmodat, dirfd, path, mode, flags);
  RECORD_IF(rc, named(dirfd, path));
  return rc;
}

// ---- load and exit ------------------------------------------------------------------------------------

struct dirent64_raw {
  uint64_t ino;
  int64_t off;
  unsigned short reclen;
  unsigned char type;
  char name[];
};

// Descriptors open for writing that this image inherited across exec (a shell's "> file").
static void track_inherited(void) {
  int dir = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) {
    for (int fd = 0; fd < 64; fd++)
      if (open_for_writing(fd)) fd_track(fd, 1);
    return;
  }
  char buf[2048];
  long n;
  while ((n = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
    for (long at = 0; at < n;) {
      struct dirent64_raw *d = (struct dirent64_raw *)(buf + at);
      at += d->reclen;
      if (d->name[0] < '0' || d->name[0] > '9') continue;
      int fd = 0;
      for (const char *c = d->name; *c >= '0' && *c <= '9' && fd < MAX_TRACKED_FD; c++) fd = fd * 10 + (*c - '0');
      if (fd == dir || fd == __atomic_load_n(&log_fd, __ATOMIC_RELAXED)) continue;
      struct stat st;
      if (open_for_writing(fd) && stat_fd(fd, &st) && S_ISREG(st.st_mode)) fd_track(fd, 1);
    }
  }
  syscall(SYS_close, dir);
}

__attribute__((constructor)) static void claims_load(void) {
  int saved = errno;
  capture_log_path();
  if (log_get() >= 0) track_inherited();
  errno = saved;
}

// Files still open for writing when the process exits: their last state is what it leaves. stdout is
// flushed first (exit would flush it right after this, unlocked, as here) so its stamp is final.
__attribute__((destructor)) static void claims_exit(void) {
  int saved = errno;
  if (log_get() >= 0) {
    int out = stdout ? fileno(stdout) : -1;
    if (out >= 0 && fd_tracked(out)) fflush_unlocked(stdout);
    for (int word = 0; word < MAX_TRACKED_FD / 64; word++) {
      uint64_t bits = __atomic_load_n(&write_fds[word], __ATOMIC_RELAXED);
      for (int b = 0; bits; b++, bits >>= 1)
        if (bits & 1) closing(word * 64 + b);
    }
  }
  errno = saved;
}
