// The claim library: loaded into every process of the sandbox (/etc/ld.so.preload), it appends one line
// to the claim log for every call through which a process changed a path, so the host can tell an
// action's changes to a granted folder from the person's edits made meanwhile (main/sandbox/claims.ts,
// docs/ARCHITECTURE.md "Attribution"). It is a claim, not a wall: code making raw system calls is not
// seen, which errs toward keeping its changes. Above all it must never break or slow a program: every
// real call runs exactly as asked, its result and errno are handed back untouched, and when the log
// cannot be opened the library does nothing at all.
//
// Log: /run/posthoc-claims/log (outside the sandbox, where that folder does not exist: $POSTHOC_CLAIMS_LOG); opened on first need, once per process image, with
// the raw system call (O_APPEND|O_CLOEXEC|O_NOFOLLOW, then moved to a high fd so that the fds shells pick
// stay free), and only if it already exists. Each record is one write() of one line, so concurrent processes never interleave:
//   OP \t INO \t SIZE \t MTIME_NS \t ISDIR \t PATH \n
//   W  opened, created or truncated for writing (stamp just after the call)
//   C  a descriptor open for writing is closed, or left open at exit (stamp then; path from /proc)
//   N  a name now holds what the call made: rename target, new link, mkdir, chmod, utimes (lstat after)
//   G  a name is gone: unlink, rmdir, rename source (stamp fields 0)
// PATH is absolute and lexically normalised; '%', TAB, LF and CR are written %25 %09 %0A %0D. A path
// longer than 2*PATH_MAX once escaped is cut and ends in "%!" (not a valid escape), which the parser
// drops; one whose folder cannot be named (a working folder deeper than PATH_MAX) is not recorded.
//
// Descriptors open for writing (fds < 65536) are kept in a bitmap so that close(), dup2() over them,
// fclose(), exit() and _exit() can say what the file finally held; dup/dup2/dup3/fcntl(F_DUPFD) copy the
// mark, and descriptors inherited across exec (a shell's "> file") are marked when the log is opened.
//
// Portability: compiled on the host when the image is built (cc -shared -fPIC -O2 -Wall -Wextra -o
// posthoc-claims.so claims-preload.c -ldl) and loaded under Debian bookworm's glibc 2.36. Besides the
// functions it wraps it uses only dlsym, secure_getenv, fileno, fflush and fflush_unlocked, all in
// glibc 2.36 under the same symbol versions, and nothing newer. The logging path itself makes raw system
// calls into stack buffers only (no malloc, no stdio, no locks held across a real call): thread-safe and
// async-signal-safe. A record needs about 8.5 KB of stack.
#define _GNU_SOURCE
#undef _FORTIFY_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>
#include <utime.h>

#define LOG_UNKNOWN (-2) // not opened yet in this image, or the program closed our fd
#define SANDBOX_LOG_DIR "/run/posthoc-claims"
#define LOG_OFF (-1)     // no log: the library is inert
#define MAX_TRACKED_FD 65536
#define PATH_LIMIT (2 * PATH_MAX)
#define HDR_ROOM 96

int __open_2(const char *, int);
int __open64_2(const char *, int);
int __openat_2(int, const char *, int);
int __openat64_2(int, const char *, int);
int fcntl64(int, int, ...);

static int log_fd = LOG_UNKNOWN;
static dev_t log_dev;
static ino_t log_ino;
static char log_path[PATH_MAX];
static int log_path_ready;
static int inherited_tracked;
static uint64_t write_fds[MAX_TRACKED_FD / 64];
static uint64_t last_closed[64]; // fingerprints of this process's last C records, see seen_before()

// The real function, looked up on first use; a racing second lookup stores the same pointer.
#define REAL(name)                                                                                        \
  static __typeof__(name) *real_##name(void) {                                                            \
    static __typeof__(name) *cached;                                                                      \
    __typeof__(name) *fn = __atomic_load_n(&cached, __ATOMIC_RELAXED);                                    \
    if (!fn) __atomic_store_n(&cached, fn = (__typeof__(name) *)dlsym(RTLD_NEXT, #name), __ATOMIC_RELAXED); \
    return fn;                                                                                            \
  }
// A missing real function (never under glibc 2.36) fails the call rather than crashing the program.
#define CALL(name, ...) (real_##name() ? real_##name()(__VA_ARGS__) : (errno = ENOSYS, -1))

// Our own system calls go to libc's syscall() directly: this library wraps syscall() too.
REAL(syscall)
#define sys(...) real_syscall()(__VA_ARGS__)

// ---- the write-fd bitmap and the log ---------------------------------------------------------------

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

static void capture_log_path(void) {
  if (__atomic_load_n(&log_path_ready, __ATOMIC_ACQUIRE)) return;
  // In the sandbox the log's folder exists (a tmpfs of its own, so filling /tmp cannot cost claims) and
  // no process may point its children elsewhere: the environment is read only where it does not exist
  // (tests on a host). secure_getenv: a set-user-ID program must not be pointed at a file its invoker
  // could not write.
  struct stat dir;
  const char *p = NULL;
  if (sys(SYS_newfstatat, AT_FDCWD, SANDBOX_LOG_DIR, &dir, AT_SYMLINK_NOFOLLOW) != 0) p = secure_getenv("POSTHOC_CLAIMS_LOG");
  if (!p || !*p) p = SANDBOX_LOG_DIR "/log";
  size_t n = strlen(p);
  if (n >= sizeof log_path) n = 0; // an unusable name: opening "" fails and the library stays inert
  memcpy(log_path, p, n);
  log_path[n] = 0;
  __atomic_store_n(&log_path_ready, 1, __ATOMIC_RELEASE);
}

// The lowest fd the log may take: well above the numbers shells and programs pick themselves.
static int high_fd_floor(void) {
  struct rlimit lim;
  if (sys(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &lim) != 0) return 10;
  rlim_t floor = lim.rlim_cur == RLIM_INFINITY || lim.rlim_cur > 3072 ? 1536 : lim.rlim_cur / 2;
  return floor < 10 ? 10 : (int)floor;
}

static void track_inherited(void);

// The log's fd, opened on first need in this process image; LOG_OFF when there is no log.
static int log_get(void) {
  int fd = __atomic_load_n(&log_fd, __ATOMIC_ACQUIRE);
  if (fd != LOG_UNKNOWN) return fd;
  capture_log_path();
  int opened = (int)sys(SYS_openat, AT_FDCWD, log_path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0);
  int expected = LOG_UNKNOWN;
  struct stat st;
  if (opened >= 0) {
    int high = (int)sys(SYS_fcntl, opened, F_DUPFD_CLOEXEC, high_fd_floor());
    if (high >= 0) sys(SYS_close, opened), opened = high;
    if (sys(SYS_fstat, opened, &st) != 0) sys(SYS_close, opened), opened = LOG_OFF;
  }
  if (opened < 0) {
    __atomic_compare_exchange_n(&log_fd, &expected, LOG_OFF, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    return __atomic_load_n(&log_fd, __ATOMIC_ACQUIRE);
  }
  // Racing openers see the same file, so storing its identity twice is harmless.
  __atomic_store_n(&log_dev, st.st_dev, __ATOMIC_RELAXED);
  __atomic_store_n(&log_ino, st.st_ino, __ATOMIC_RELAXED);
  if (!__atomic_compare_exchange_n(&log_fd, &expected, opened, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    sys(SYS_close, opened);
    return expected;
  }
  if (!__atomic_exchange_n(&inherited_tracked, 1, __ATOMIC_ACQ_REL)) track_inherited();
  return opened;
}

// The program closed or replaced our descriptor: open the log again for the next record.
static void log_fd_lost(int fd) {
  int expected = fd;
  if (fd >= 0) __atomic_compare_exchange_n(&log_fd, &expected, LOG_UNKNOWN, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

// The log itself is nobody's change (a second copy of this library would claim it), and a descriptor
// is only written to while it still is the log.
static int is_log(const struct stat *st) {
  return st->st_ino == __atomic_load_n(&log_ino, __ATOMIC_RELAXED) && st->st_dev == __atomic_load_n(&log_dev, __ATOMIC_RELAXED);
}

// Checks first that the fd still is the log: a program may have closed it and reused its number for a
// file of its own, which must never receive our lines.
static void log_write(const char *line, size_t len) {
  for (int attempt = 0; attempt < 2; attempt++) {
    int fd = log_get();
    struct stat st;
    if (fd < 0) return;
    if (sys(SYS_fstat, fd, &st) == 0 && is_log(&st)) {
      sys(SYS_write, fd, line, len);
      return;
    }
    log_fd_lost(fd);
  }
}

// ---- records ------------------------------------------------------------------------------------------

// One line under construction: the path is built at buf + HDR_ROOM, the header goes right before it.
typedef struct {
  char buf[HDR_ROOM + PATH_LIMIT + 4];
  size_t len;
  int cut;
} record_t;
#define REC_PATH(r) ((r)->buf + HDR_ROOM)

static void append(record_t *r, const char *s, size_t n) {
  if (n > PATH_LIMIT - r->len) n = PATH_LIMIT - r->len, r->cut = 1;
  memcpy(REC_PATH(r) + r->len, s, n);
  r->len += n;
}

// Lexical normalisation in place: '.', '..' and repeated slashes go; the result starts with '/'.
static void normalise(record_t *r) {
  char *p = REC_PATH(r);
  size_t n = r->len, out = 0, i = 0;
  while (i < n) {
    while (i < n && p[i] == '/') i++;
    size_t start = i;
    while (i < n && p[i] != '/') i++;
    size_t len = i - start;
    if (len == 0 || (len == 1 && p[start] == '.')) continue;
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

static char *put_decimal(char *at, uint64_t v) {
  char digits[24];
  int n = 0;
  do digits[n++] = (char)('0' + v % 10); while (v /= 10);
  while (n > 0) *at++ = digits[--n];
  return at;
}

// The path an fd was opened by (readlink /proc/self/fd/N), NUL-terminated; 0 when not a plain path.
static size_t fd_link(int fd, char *out) {
  char proc[32] = "/proc/self/fd/";
  *put_decimal(proc + 14, (unsigned)fd) = 0;
  long got = sys(SYS_readlinkat, AT_FDCWD, proc, out, (size_t)PATH_LIMIT);
  if (got <= 0 || got >= PATH_LIMIT || out[0] != '/') return 0;
  out[got] = 0;
  return (size_t)got;
}

// Builds the absolute path of (dirfd, path) into r; 0 when it cannot be known (an unlinked cwd...).
static int resolve(record_t *r, int dirfd, const char *path) {
  r->len = 0;
  r->cut = 0;
  if (!path) return 0;
  if (path[0] != '/') {
    if (dirfd == AT_FDCWD) {
      long got = sys(SYS_getcwd, REC_PATH(r), (size_t)PATH_LIMIT);
      if (got <= 1 || REC_PATH(r)[0] != '/') return 0;
      r->len = (size_t)got - 1; // the kernel counts the terminating NUL
    } else if (!(r->len = fd_link(dirfd, REC_PATH(r)))) {
      return 0;
    }
    append(r, "/", 1);
  }
  append(r, path, strlen(path));
  normalise(r);
  return 1;
}

static int is_special(unsigned char c) { return c == '%' || c == '\t' || c == '\n' || c == '\r'; }

// Escapes the path in place (backwards, since it only grows), puts the header before it, writes the line.
static void emit(record_t *r, char op, const struct stat *st, int dir) {
  static const char hex[] = "0123456789ABCDEF";
  char *p = REC_PATH(r);
  size_t encoded = 0, keep = 0;
  int cut = r->cut;
  for (; keep < r->len; keep++) {
    size_t w = is_special((unsigned char)p[keep]) ? 3 : 1;
    if (encoded + w > PATH_LIMIT - 2) {
      cut = 1;
      break;
    }
    encoded += w;
  }
  for (size_t i = keep, j = encoded; i-- > 0;) {
    unsigned char c = (unsigned char)p[i];
    if (!is_special(c)) p[--j] = (char)c;
    else p[--j] = hex[c & 15], p[--j] = hex[c >> 4], p[--j] = '%';
  }
  if (cut) p[encoded++] = '%', p[encoded++] = '!';
  p[encoded++] = '\n';

  char head[HDR_ROOM], *h = head;
  int64_t mtime = st ? (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec : 0;
  *h++ = op, *h++ = '\t';
  h = put_decimal(h, st ? (uint64_t)st->st_ino : 0), *h++ = '\t';
  h = put_decimal(h, st ? (uint64_t)st->st_size : 0), *h++ = '\t';
  if (mtime < 0) *h++ = '-';
  h = put_decimal(h, mtime < 0 ? (uint64_t)0 - (uint64_t)mtime : (uint64_t)mtime), *h++ = '\t';
  *h++ = dir ? '1' : '0', *h++ = '\t';
  size_t hlen = (size_t)(h - head);
  memcpy(p - hlen, head, hlen);
  // Any other record may change what a file's last record is: the next close must be written again.
  if (op != 'C')
    for (int i = 0; i < 64; i++) __atomic_store_n(&last_closed[i], 0, __ATOMIC_RELAXED);
  log_write(p - hlen, hlen + encoded);
}

static int stat_fd(int fd, struct stat *st) { return sys(SYS_fstat, fd, st) == 0; }

static int lstat_at(int dirfd, const char *path, struct stat *st) {
  return sys(SYS_newfstatat, dirfd, path, st, AT_SYMLINK_NOFOLLOW) == 0;
}

static int open_for_writing(int fd) {
  long fl = sys(SYS_fcntl, fd, F_GETFL);
  return fl >= 0 && (fl & O_ACCMODE) != O_RDONLY;
}

// W: a path was opened for writing; its fd is marked for the C record at close.
static void opened(int fd, int flags, int dirfd, const char *path) {
  struct stat st;
  record_t r;
  if (fd < 0) return;
  int writes = (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC));
  // Devices, fifos and the like change no folder; O_PATH opens nothing.
  int claim = writes && !(flags & O_PATH) && log_get() >= 0 && stat_fd(fd, &st) && S_ISREG(st.st_mode) && !is_log(&st);
  fd_track(fd, claim);
  if (!claim || (flags & O_TMPFILE) == O_TMPFILE) return; // a nameless file gets its name by linkat (N)
  if (resolve(&r, dirfd, path)) emit(&r, 'W', &st, 0);
}

// Programs close copies of one descriptor many times (a shell's saved stdout, an interpreter probing
// fd 2): a C record equal to this process's last one for that file says nothing new. One 64-bit
// fingerprint per slot, so racing threads can only repeat a line, never lose one.
static int seen_before(const record_t *r, const struct stat *st) {
  uint64_t h = 1469598103934665603ULL;
  const unsigned char *p = (const unsigned char *)REC_PATH(r);
  uint64_t parts[5] = {st->st_dev, st->st_ino, (uint64_t)st->st_size, (uint64_t)st->st_mtim.tv_sec, (uint64_t)st->st_mtim.tv_nsec};
  for (size_t i = 0; i < r->len; i++) h = (h ^ p[i]) * 1099511628211ULL;
  for (int i = 0; i < 5; i++) h = (h ^ parts[i]) * 1099511628211ULL;
  uint64_t *slot = &last_closed[st->st_ino & 63];
  if (__atomic_load_n(slot, __ATOMIC_RELAXED) == h) return 1;
  __atomic_store_n(slot, h, __ATOMIC_RELAXED);
  return 0;
}

// C (a descriptor open for writing is being closed) or N (utimes through a descriptor): the file's
// stamp now, under the name /proc gives, if that name still leads to it (not "x (deleted)").
static void fd_record(int fd, char op) {
  struct stat st, named;
  record_t r;
  if (!stat_fd(fd, &st) || st.st_nlink == 0 || is_log(&st)) return;
  if (op == 'C' && (!S_ISREG(st.st_mode) || !open_for_writing(fd))) return;
  r.cut = 0;
  if (!(r.len = fd_link(fd, REC_PATH(&r)))) return;
  if (!lstat_at(AT_FDCWD, REC_PATH(&r), &named) || named.st_ino != st.st_ino || named.st_dev != st.st_dev) return;
  if (op == 'C' && seen_before(&r, &st)) return;
  emit(&r, op, &st, S_ISDIR(st.st_mode));
}

static void closing(int fd) { fd_record(fd, 'C'); }

// N, or G when the name is gone again (a rename's source is usually gone, unless it was a second link
// to the same file): what a name holds after the call. An empty name means dirfd itself.
static void named(int dirfd, const char *path, int dir_if_gone) {
  record_t r;
  struct stat st;
  if (path && !*path) {
    if (dirfd >= 0) fd_record(dirfd, 'N');
    return;
  }
  if (!resolve(&r, dirfd, path)) return;
  if (lstat_at(dirfd, path, &st)) emit(&r, 'N', &st, S_ISDIR(st.st_mode));
  else if (errno == ENOENT || errno == ENOTDIR) emit(&r, 'G', NULL, dir_if_gone);
}

static void gone(int dirfd, const char *path, int dir) {
  record_t r;
  if (resolve(&r, dirfd, path)) emit(&r, 'G', NULL, dir);
}

static void renamed(int olddir, const char *from, int newdir, const char *to) {
  struct stat st;
  int dir = lstat_at(newdir, to, &st) && S_ISDIR(st.st_mode);
  named(olddir, from, dir);
  named(newdir, to, dir);
}

static void truncated(const char *path) {
  struct stat st;
  record_t r;
  if (sys(SYS_newfstatat, AT_FDCWD, path, &st, 0) == 0 && resolve(&r, AT_FDCWD, path)) emit(&r, 'W', &st, 0);
}

// utimensat(fd, NULL, ...) sets the times of fd itself, as an empty name does.
static void touched(int dirfd, const char *path) { named(dirfd, path ? path : "", 0); }

// ---- intercepted calls ------------------------------------------------------------------------------
// Each runs the real call first, records only what succeeded, and hands back its result and errno.

#define KEEP_ERRNO(stmt)                                                                                  \
  do {                                                                                                    \
    int saved_ = errno;                                                                                   \
    stmt;                                                                                                 \
    errno = saved_;                                                                                       \
  } while (0)

static int needs_mode(int flags) { return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE; }

#define MODE_ARG(flags)                                                                                   \
  mode_t mode = 0;                                                                                        \
  if (needs_mode(flags)) {                                                                                \
    va_list ap;                                                                                           \
    va_start(ap, flags);                                                                                  \
    mode = (mode_t)va_arg(ap, int);                                                                       \
    va_end(ap);                                                                                           \
  }
#define OPEN(name)                                                                                        \
  REAL(name) int name(const char *path, int flags, ...) {                                                 \
    MODE_ARG(flags) int fd = CALL(name, path, flags, mode);                                               \
    KEEP_ERRNO(opened(fd, flags, AT_FDCWD, path));                                                        \
    return fd;                                                                                            \
  }
#define OPENAT(name)                                                                                      \
  REAL(name) int name(int dirfd, const char *path, int flags, ...) {                                      \
    MODE_ARG(flags) int fd = CALL(name, dirfd, path, flags, mode);                                        \
    KEEP_ERRNO(opened(fd, flags, dirfd, path));                                                           \
    return fd;                                                                                            \
  }
#define OPEN_2(name)                                                                                      \
  REAL(name) int name(const char *path, int flags) {                                                      \
    int fd = CALL(name, path, flags);                                                                     \
    KEEP_ERRNO(opened(fd, flags, AT_FDCWD, path));                                                        \
    return fd;                                                                                            \
  }
#define OPENAT_2(name)                                                                                    \
  REAL(name) int name(int dirfd, const char *path, int flags) {                                           \
    int fd = CALL(name, dirfd, path, flags);                                                              \
    KEEP_ERRNO(opened(fd, flags, dirfd, path));                                                           \
    return fd;                                                                                            \
  }
#define CREAT(name)                                                                                       \
  REAL(name) int name(const char *path, mode_t mode) {                                                    \
    int fd = CALL(name, path, mode);                                                                      \
    KEEP_ERRNO(opened(fd, O_CREAT | O_WRONLY | O_TRUNC, AT_FDCWD, path));                                 \
    return fd;                                                                                            \
  }
OPEN(open) OPEN(open64) OPENAT(openat) OPENAT(openat64)
OPEN_2(__open_2) OPEN_2(__open64_2) OPENAT_2(__openat_2) OPENAT_2(__openat64_2)
CREAT(creat) CREAT(creat64)

// mkstemp and kin open inside libc, past the wrappers above; the template then holds the name.
#define MKSTEMP(name, params, ...)                                                                        \
  REAL(name) int name params {                                                                            \
    int fd = CALL(name, __VA_ARGS__);                                                                     \
    KEEP_ERRNO(opened(fd, O_RDWR | O_CREAT, AT_FDCWD, path));                                             \
    return fd;                                                                                            \
  }
MKSTEMP(mkstemp, (char *path), path)
MKSTEMP(mkstemp64, (char *path), path)
MKSTEMP(mkostemp, (char *path, int flags), path, flags)
MKSTEMP(mkostemp64, (char *path, int flags), path, flags)
MKSTEMP(mkstemps, (char *path, int suffix), path, suffix)
MKSTEMP(mkostemps, (char *path, int suffix, int flags), path, suffix, flags)

// Calls on names that return 0 on success; `record` says what the name holds now.
#define ON_SUCCESS(name, params, args, record)                                                            \
  REAL(name) int name params {                                                                            \
    int rc = real_##name() ? real_##name() args : (errno = ENOSYS, -1);                                   \
    if (rc == 0 && log_get() >= 0) KEEP_ERRNO(record);                                                    \
    return rc;                                                                                            \
  }
ON_SUCCESS(truncate, (const char *path, off_t length), (path, length), truncated(path))
ON_SUCCESS(truncate64, (const char *path, off64_t length), (path, length), truncated(path))
ON_SUCCESS(rename, (const char *from, const char *to), (from, to), renamed(AT_FDCWD, from, AT_FDCWD, to))
ON_SUCCESS(renameat, (int olddir, const char *from, int newdir, const char *to), (olddir, from, newdir, to),
           renamed(olddir, from, newdir, to))
ON_SUCCESS(renameat2, (int olddir, const char *from, int newdir, const char *to, unsigned flags),
           (olddir, from, newdir, to, flags), renamed(olddir, from, newdir, to))
ON_SUCCESS(unlink, (const char *path), (path), gone(AT_FDCWD, path, 0))
ON_SUCCESS(unlinkat, (int dirfd, const char *path, int flags), (dirfd, path, flags), gone(dirfd, path, (flags & AT_REMOVEDIR) != 0))
ON_SUCCESS(rmdir, (const char *path), (path), gone(AT_FDCWD, path, 1))
ON_SUCCESS(mkdir, (const char *path, mode_t mode), (path, mode), named(AT_FDCWD, path, 0))
ON_SUCCESS(mkdirat, (int dirfd, const char *path, mode_t mode), (dirfd, path, mode), named(dirfd, path, 0))
ON_SUCCESS(link, (const char *from, const char *to), (from, to), named(AT_FDCWD, to, 0))
ON_SUCCESS(linkat, (int olddir, const char *from, int newdir, const char *to, int flags), (olddir, from, newdir, to, flags),
           named(newdir, to, 0))
ON_SUCCESS(symlink, (const char *target, const char *path), (target, path), named(AT_FDCWD, path, 0))
ON_SUCCESS(symlinkat, (const char *target, int dirfd, const char *path), (target, dirfd, path), named(dirfd, path, 0))
ON_SUCCESS(chmod, (const char *path, mode_t mode), (path, mode), named(AT_FDCWD, path, 0))
ON_SUCCESS(fchmodat, (int dirfd, const char *path, mode_t mode, int flags), (dirfd, path, mode, flags), named(dirfd, path, 0))
// Setting times changes a file's stamp without writing it (git "freshens" objects it would rewrite).
ON_SUCCESS(utime, (const char *path, const struct utimbuf *times), (path, times), named(AT_FDCWD, path, 0))
ON_SUCCESS(utimes, (const char *path, const struct timeval times[2]), (path, times), named(AT_FDCWD, path, 0))
ON_SUCCESS(lutimes, (const char *path, const struct timeval times[2]), (path, times), named(AT_FDCWD, path, 0))
ON_SUCCESS(futimes, (int fd, const struct timeval times[2]), (fd, times), fd_record(fd, 'N'))
ON_SUCCESS(futimesat, (int dirfd, const char *path, const struct timeval times[2]), (dirfd, path, times), touched(dirfd, path))
ON_SUCCESS(utimensat, (int dirfd, const char *path, const struct timespec times[2], int flags), (dirfd, path, times, flags),
           touched(dirfd, path))
ON_SUCCESS(futimens, (int fd, const struct timespec times[2]), (fd, times), fd_record(fd, 'N'))

// fopen's mode as open flags: w, a or + before any ",ccs=" suffix means writing.
static int stream_flags(const char *mode) {
  for (const char *m = mode; m && *m && *m != ','; m++)
    if (*m == 'w' || *m == 'a' || *m == '+') return O_WRONLY;
  return O_RDONLY;
}

#define FOPEN(name)                                                                                       \
  REAL(name) FILE *name(const char *path, const char *mode) {                                             \
    FILE *f = real_##name() ? real_##name()(path, mode) : (errno = ENOSYS, NULL);                         \
    if (f) KEEP_ERRNO(opened(fileno(f), stream_flags(mode), AT_FDCWD, path));                             \
    return f;                                                                                             \
  }
FOPEN(fopen) FOPEN(fopen64)

// Closing a stream flushes it first, so its C record is taken after the real close, from a duplicate
// made before.
static int probe_stream(FILE *f) {
  int fd = f ? fileno(f) : -1;
  if (fd < 0 || log_get() < 0 || !open_for_writing(fd)) return -1;
  return (int)sys(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 0);
}

static void stream_closed(int fd, int probe) {
  fd_track(fd, 0);
  if (probe < 0) return;
  closing(probe);
  sys(SYS_close, probe);
}

static void stream_reopened(FILE *f, const char *path, const char *mode) {
  record_t r;
  int fd = fileno(f);
  if (path) opened(fd, stream_flags(mode), AT_FDCWD, path);
  else if (fd_link(fd, REC_PATH(&r))) opened(fd, stream_flags(mode), AT_FDCWD, REC_PATH(&r));
}

#define FREOPEN(name)                                                                                     \
  REAL(name) FILE *name(const char *path, const char *mode, FILE *f) {                                    \
    int old = f ? fileno(f) : -1, probe;                                                                  \
    KEEP_ERRNO(probe = probe_stream(f));                                                                  \
    FILE *g = real_##name() ? real_##name()(path, mode, f) : (errno = ENOSYS, NULL);                      \
    KEEP_ERRNO(stream_closed(old, probe); if (g) stream_reopened(g, path, mode));                         \
    return g;                                                                                             \
  }
FREOPEN(freopen) FREOPEN(freopen64)

REAL(fclose)
int fclose(FILE *f) {
  int fd = f ? fileno(f) : -1, probe;
  KEEP_ERRNO(probe = probe_stream(f));
  int rc = CALL(fclose, f);
  KEEP_ERRNO(stream_closed(fd, probe));
  return rc;
}

// fcloseall flushes every stream before closing them, so flushing first makes the stamps final.
REAL(fcloseall)
int fcloseall(void) {
  if (log_get() >= 0) KEEP_ERRNO(fflush(NULL); for (int fd = 0; fd < MAX_TRACKED_FD; fd++) if (fd_tracked(fd)) closing(fd));
  int rc = CALL(fcloseall);
  KEEP_ERRNO(for (int fd = 0; fd < MAX_TRACKED_FD; fd++) if (fd_tracked(fd) && sys(SYS_fcntl, fd, F_GETFD) < 0) fd_track(fd, 0));
  return rc;
}

// Before fd stops naming its file (close, or dup2/dup3 onto it): a C record, and the log reopened if
// the program is closing ours.
static void letting_go(int fd) {
  int log = log_get(); // first: opening the log marks the descriptors inherited across exec
  if (fd >= 0 && fd == log) log_fd_lost(fd);
  else if (fd_tracked(fd) && log >= 0) closing(fd);
  fd_track(fd, 0);
}

REAL(close)
int close(int fd) {
  KEEP_ERRNO(letting_go(fd));
  return CALL(close, fd);
}

// A copy of a descriptor carries its mark, so the copy's close is a C record too.
static void duplicated(int oldfd, int newfd) {
  if (newfd >= 0 && newfd != oldfd) fd_track(newfd, fd_tracked(oldfd));
}

REAL(dup)
int dup(int oldfd) {
  int fd = CALL(dup, oldfd);
  duplicated(oldfd, fd);
  return fd;
}

REAL(dup2)
int dup2(int oldfd, int newfd) {
  if (oldfd != newfd) KEEP_ERRNO(letting_go(newfd));
  int fd = CALL(dup2, oldfd, newfd);
  duplicated(oldfd, fd);
  return fd;
}

REAL(dup3)
int dup3(int oldfd, int newfd, int flags) {
  if (oldfd != newfd) KEEP_ERRNO(letting_go(newfd));
  int fd = CALL(dup3, oldfd, newfd, flags);
  duplicated(oldfd, fd);
  return fd;
}

// fcntl's third argument is an int or a pointer; passed on as a pointer, either arrives intact.
#define FCNTL(name)                                                                                       \
  REAL(name) int name(int fd, int cmd, ...) {                                                             \
    va_list ap;                                                                                           \
    va_start(ap, cmd);                                                                                    \
    void *arg = va_arg(ap, void *);                                                                       \
    va_end(ap);                                                                                           \
    int rc = CALL(name, fd, cmd, arg);                                                                    \
    if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) duplicated(fd, rc);                                     \
    return rc;                                                                                            \
  }
FCNTL(fcntl) FCNTL(fcntl64)

// close_range() and closefrom() close many at once (interpreters do before exec); CLOSE_RANGE_CLOEXEC
// only marks them, and exec is seen by the new image.
static void letting_go_range(unsigned first, unsigned last) {
  int log = log_get();
  if (log >= 0 && (unsigned)log >= first && (unsigned)log <= last) log_fd_lost(log);
  for (unsigned fd = first; fd <= last && fd < MAX_TRACKED_FD; fd++) {
    if (!(fd & 63) && !__atomic_load_n(&write_fds[fd >> 6], __ATOMIC_RELAXED)) {
      fd += 63; // a word without marks
      continue;
    }
    if (fd_tracked((int)fd) && log >= 0) closing((int)fd);
    fd_track((int)fd, 0);
  }
}

REAL(close_range)
int close_range(unsigned first, unsigned last, int flags) {
  if (!(flags & CLOSE_RANGE_CLOEXEC)) KEEP_ERRNO(letting_go_range(first, last));
  return CALL(close_range, first, last, flags);
}

REAL(closefrom)
void closefrom(int lowfd) {
  KEEP_ERRNO(letting_go_range(lowfd < 0 ? 0 : (unsigned)lowfd, ~0U));
  if (real_closefrom()) real_closefrom()(lowfd);
}

// Some runtimes make these calls through syscall() (libuv closes every file so): seen here too.
long syscall(long number, ...) {
  va_list ap;
  long a[6];
  va_start(ap, number);
  for (int i = 0; i < 6; i++) a[i] = va_arg(ap, long);
  va_end(ap);
  if (number == SYS_close) KEEP_ERRNO(letting_go((int)a[0]));
  if (number == SYS_close_range && !(a[2] & CLOSE_RANGE_CLOEXEC)) KEEP_ERRNO(letting_go_range((unsigned)a[0], (unsigned)a[1]));
  long rc = real_syscall() ? real_syscall()(number, a[0], a[1], a[2], a[3], a[4], a[5]) : (errno = ENOSYS, -1);
  if (rc >= 0 && number == SYS_openat) KEEP_ERRNO(opened((int)rc, (int)a[2], (int)a[0], (const char *)a[1]));
#ifdef SYS_open
  if (rc >= 0 && number == SYS_open) KEEP_ERRNO(opened((int)rc, (int)a[1], AT_FDCWD, (const char *)a[0]));
#endif
  return rc;
}

// ---- load and exit ------------------------------------------------------------------------------------

// Descriptors open for writing that this image inherited across exec (a shell's "> file"): marked when
// the log is first opened, which every call that consults the marks does first.
static void track_inherited(void) {
  struct stat st;
  int dir = (int)sys(SYS_openat, AT_FDCWD, "/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  int self = __atomic_load_n(&log_fd, __ATOMIC_RELAXED);
  char buf[2048];
  long n;
  if (dir < 0) {
    for (int fd = 0; fd < 64; fd++)
      if (open_for_writing(fd) && stat_fd(fd, &st) && S_ISREG(st.st_mode)) fd_track(fd, 1);
    return;
  }
  while ((n = sys(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
    for (long at = 0; at < n; at += *(unsigned short *)(buf + at + 16)) {
      const char *name = buf + at + 19; // struct linux_dirent64: ino 8, off 8, reclen 2, type 1, name
      int fd = 0;
      if (*name < '0' || *name > '9') continue;
      for (; *name >= '0' && *name <= '9' && fd < MAX_TRACKED_FD; name++) fd = fd * 10 + (*name - '0');
      if (fd != dir && fd != self && open_for_writing(fd) && stat_fd(fd, &st) && S_ISREG(st.st_mode)) fd_track(fd, 1);
    }
  }
  sys(SYS_close, dir);
}

// The log's name is read at load, before the program can change its environment; syscall() is looked
// up now so that the logging path never calls dlsym.
// A forked child looks for the log again at its next record: the sandbox's runner forks each action right
// after replacing the log, and a parent that found no log (PID 1 at its start) or holds an older one must
// not decide for its child. The fds it tracks as open for writing stay tracked: they are the child's too.
static void reset_after_fork(void) {
  int fd = __atomic_load_n(&log_fd, __ATOMIC_RELAXED);
  if (fd >= 0) sys(SYS_close, fd);
  __atomic_store_n(&log_fd, LOG_UNKNOWN, __ATOMIC_RELAXED);
}

__attribute__((constructor)) static void claims_load(void) {
  capture_log_path();
  real_syscall();
  pthread_atfork(NULL, NULL, reset_after_fork);
}

// Files still open for writing when the process ends: their state now is what it leaves.
static void close_all_tracked(void) {
  for (int word = 0; word < MAX_TRACKED_FD / 64; word++)
    for (uint64_t bits = __atomic_load_n(&write_fds[word], __ATOMIC_RELAXED), b = 0; bits; b++, bits >>= 1)
      if (bits & 1) closing(word * 64 + (int)b);
}

// exit(): stdout is flushed first (exit flushes it right after this, unlocked too), so its stamp is final.
__attribute__((destructor)) static void claims_exit(void) {
  int out = stdout ? fileno(stdout) : -1;
  if (log_get() >= 0) KEEP_ERRNO(if (out >= 0 && fd_tracked(out)) fflush_unlocked(stdout); close_all_tracked());
}

// _exit() skips destructors: shells (dash) and forked children end this way, often with a redirected
// stdout they wrote after their last close().
REAL(_exit)
REAL(_Exit)
__attribute__((noreturn)) static void end_now(void (*real)(int), int status) {
  if (log_get() >= 0) close_all_tracked();
  if (real) real(status);
  sys(SYS_exit_group, status);
  __builtin_unreachable();
}

void _exit(int status) { end_now(real__exit(), status); }

void _Exit(int status) { end_now(real__Exit(), status); }
