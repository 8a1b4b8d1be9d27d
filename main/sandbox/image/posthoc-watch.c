// posthoc-watch: what the kernel saw the sandbox's processes change in the granted folders, for the host's
// attribution (main/effects/fs/kernel-attribution.ts, docs/ARCHITECTURE.md "Attribution").
//
// A shared library loaded by the container's PID 1 (image/posthoc_init.py, through ctypes). Before PID 1
// forks anything, while the container still holds CAP_SYS_ADMIN (and CAP_DAC_READ_SEARCH: fanotify_mark needs
// to read the folder, which may be the person's own, mode 0700), watch_setup() creates one fanotify group
// reporting file handles (FAN_REPORT_DFID_NAME_TARGET) and marks the whole file system of every writable
// granted folder (FAN_MARK_FILESYSTEM); PID 1 then drops both capabilities for good. watch_loop() runs on a
// thread of PID 1: the one process `kill -9 -1` never reaches and no action can trace or read.
//
// The kernel reports each change with the pid of the process that made it, as seen from PID 1's namespace: a
// process of this container has a pid, every process outside it (the person, their editor, another
// container) has pid 0. Whatever made the change — a C library call, a raw system call of a static binary, a
// rename of a whole folder into place, a hard link — the kernel saw it. A write through mmap has no
// FAN_MODIFY; the file's close after writing (FAN_CLOSE_WRITE) stands for it.
//
// Kept between two collections:
//   inside  one record per (folder handle, name, object handle) changed by a process of this container, with
//           the OR of its event masks; at most MAX_INSIDE records (more: "cut").
//   outside a set of 64-bit FNV-1a keys of what processes outside changed: one key for the entry (folder
//           handle and name), one for the object (its handle); at most MAX_OUTSIDE keys (more: "outside-cut").
//
// The loop answers one-byte commands on its end of a socketpair (the runner's, or PID 1's MCP thread's):
//   B  forget everything seen so far (the queue is drained first); answers "b".
//   E  drain the queue; answer 4 bytes of big-endian length and the collection since the last B or E:
//        W1\tinside=N\toutside=M\tflags=F\tat=NS\n   F: "-" or a comma list of overflow, cut, outside-cut;
//                                                 NS: CLOCK_REALTIME when collected, in nanoseconds
//        I\tMASK\tFSID\tTYPE:HANDLE\tNAME\tTYPE:HANDLE\n   hex; the name with %, TAB, LF, CR as %XX; "-" for none
//        O\tKEY\n                                         16 hex digits
//      and starts a new collection.
// Compiled on the host like the claim library (cc -shared -fPIC -O2 -Wall), using only calls bookworm's
// glibc 2.36 has.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <time.h>
#include <unistd.h>

#ifndef FAN_REPORT_DFID_NAME_TARGET
#define FAN_REPORT_TARGET_FID 0x00001000
#define FAN_REPORT_DFID_NAME_TARGET (FAN_REPORT_DFID_NAME | FAN_REPORT_FID | FAN_REPORT_TARGET_FID)
#endif
#ifndef FAN_EVENT_INFO_TYPE_OLD_DFID_NAME
#define FAN_EVENT_INFO_TYPE_OLD_DFID_NAME 10
#define FAN_EVENT_INFO_TYPE_NEW_DFID_NAME 12
#endif

#define WATCHED (FAN_MODIFY | FAN_ATTRIB | FAN_CLOSE_WRITE | FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO | FAN_ONDIR)
#define MAX_INSIDE (1u << 20)
#define MAX_OUTSIDE (1u << 22)
#define MAX_HANDLE 128

typedef struct {
  uint8_t fsid[8];
  int32_t type;
  uint32_t len;
  uint8_t bytes[MAX_HANDLE];
} handle_t;

// Compact: the handles' and the name's bytes follow the record (about 80 bytes for a typical entry).
typedef struct record {
  struct record *next; // hash chain
  uint64_t key;
  uint64_t mask;
  uint8_t fsid[8];
  int32_t dir_type, obj_type;
  uint8_t dir_len, obj_len, has_dir, has_obj;
  uint16_t name_len;
  uint8_t data[]; // dir handle, object handle, name
} record_t;

static const uint8_t *rec_dir(const record_t *r) { return r->data; }
static const uint8_t *rec_obj(const record_t *r) { return r->data + r->dir_len; }
static const char *rec_name(const record_t *r) { return (const char *)r->data + r->dir_len + r->obj_len; }

static record_t **inside;
static uint32_t inside_buckets = 1u << 16, inside_count;
static uint64_t *outside;
static uint32_t outside_slots = 1u << 16, outside_count;
static int overflow, cut, outside_cut;

static uint64_t fnv(uint64_t h, const void *data, size_t n) {
  const uint8_t *p = data;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

// Keys leave out the file system's id: the host names a folder's file system by statfs, which need not give
// the id fanotify reports (btrfs subvolumes), and handles of two watched file systems colliding is harmless.
static uint64_t handle_hash(uint8_t kind, const handle_t *h) {
  uint64_t k = fnv(0xcbf29ce484222325ULL, &kind, 1);
  k = fnv(k, &h->type, 4);
  k = fnv(k, &h->len, 4);
  return fnv(k, h->bytes, h->len);
}

/** The entry's key (kind 1: folder handle and name) or the object's (kind 2: its handle); never 0. */
static uint64_t entry_key(const handle_t *dir, const char *name, size_t name_len) {
  uint64_t k = fnv(handle_hash(1, dir), name, name_len);
  return k ? k : 1;
}
static uint64_t object_key(const handle_t *obj) {
  uint64_t k = handle_hash(2, obj);
  return k ? k : 1;
}

static void outside_add(uint64_t key) {
  if (outside_cut) return;
  if ((outside_count + 1) * 2 > outside_slots) {
    if (outside_slots * 2 > MAX_OUTSIDE * 2) {
      outside_cut = 1;
      return;
    }
    uint32_t slots = outside_slots * 2;
    uint64_t *grown = calloc(slots, sizeof *grown);
    if (!grown) {
      outside_cut = 1;
      return;
    }
    for (uint32_t i = 0; i < outside_slots; i++) {
      if (!outside[i]) continue;
      uint32_t j = (uint32_t)outside[i] & (slots - 1);
      while (grown[j]) j = (j + 1) & (slots - 1);
      grown[j] = outside[i];
    }
    free(outside);
    outside = grown;
    outside_slots = slots;
  }
  uint32_t j = (uint32_t)key & (outside_slots - 1);
  while (outside[j]) {
    if (outside[j] == key) return;
    j = (j + 1) & (outside_slots - 1);
  }
  outside[j] = key;
  outside_count++;
}

static int same_handle(const handle_t *h, int32_t type, uint8_t len, const uint8_t *bytes) {
  return h->type == type && h->len == len && memcmp(h->bytes, bytes, len) == 0;
}

/** Doubles the table when it holds twice as many records as buckets: chains stay short. */
static void grow_inside(void) {
  if (inside_count < inside_buckets * 2u || inside_buckets >= (1u << 22)) return;
  uint32_t buckets = inside_buckets * 2;
  record_t **grown = calloc(buckets, sizeof *grown);
  if (!grown) return;
  for (uint32_t b = 0; b < inside_buckets; b++) {
    for (record_t *r = inside[b], *next; r; r = next) {
      next = r->next;
      uint32_t nb = (uint32_t)r->key & (buckets - 1);
      r->next = grown[nb];
      grown[nb] = r;
    }
  }
  free(inside);
  inside = grown;
  inside_buckets = buckets;
}

static void inside_add(uint64_t mask, const handle_t *dir, const char *name, size_t name_len, const handle_t *obj) {
  uint64_t key = dir ? entry_key(dir, name, name_len) : 7;
  if (obj) key = fnv(key, &obj->len, 4), key = fnv(key, obj->bytes, obj->len);
  uint32_t b = (uint32_t)key & (inside_buckets - 1);
  for (record_t *r = inside[b]; r; r = r->next) {
    if (r->key != key || r->has_dir != (dir != NULL) || r->has_obj != (obj != NULL) || r->name_len != name_len) continue;
    if (dir && !same_handle(dir, r->dir_type, r->dir_len, rec_dir(r))) continue;
    if (obj && !same_handle(obj, r->obj_type, r->obj_len, rec_obj(r))) continue;
    if (memcmp(rec_name(r), name, name_len)) continue;
    r->mask |= mask;
    return;
  }
  if (inside_count >= MAX_INSIDE) {
    cut = 1;
    return;
  }
  size_t dir_len = dir ? dir->len : 0, obj_len = obj ? obj->len : 0;
  record_t *r = calloc(1, sizeof *r + dir_len + obj_len + name_len);
  if (!r) {
    cut = 1;
    return;
  }
  r->key = key;
  r->mask = mask;
  memcpy(r->fsid, dir ? dir->fsid : obj ? obj->fsid : (const uint8_t *)"\0\0\0\0\0\0\0", 8);
  if (dir) r->dir_type = dir->type, r->dir_len = (uint8_t)dir_len, r->has_dir = 1, memcpy(r->data, dir->bytes, dir_len);
  if (obj) r->obj_type = obj->type, r->obj_len = (uint8_t)obj_len, r->has_obj = 1, memcpy(r->data + dir_len, obj->bytes, obj_len);
  r->name_len = (uint16_t)name_len;
  memcpy(r->data + dir_len + obj_len, name, name_len);
  r->next = inside[b];
  inside[b] = r;
  inside_count++;
  grow_inside();
}

static void forget(void) {
  for (uint32_t b = 0; b < inside_buckets; b++) {
    record_t *r = inside[b];
    while (r) {
      record_t *next = r->next;
      free(r);
      r = next;
    }
    inside[b] = NULL;
  }
  inside_count = 0;
  memset(outside, 0, outside_slots * sizeof *outside);
  outside_count = 0;
  overflow = cut = outside_cut = 0;
}

/** Reads one info record's handle (and name, for the *_NAME kinds); 0 when it does not fit. */
static int read_handle(const struct fanotify_event_info_fid *f, size_t room, handle_t *out, const char **name, size_t *name_len) {
  const struct file_handle *fh = (const struct file_handle *)f->handle;
  size_t head = sizeof *f + sizeof *fh;
  if (room < head || fh->handle_bytes > MAX_HANDLE || room < head + fh->handle_bytes) return 0;
  memset(out, 0, sizeof *out);
  memcpy(out->fsid, &f->fsid, 8);
  out->type = fh->handle_type;
  out->len = fh->handle_bytes;
  memcpy(out->bytes, fh->f_handle, fh->handle_bytes);
  if (name) {
    const char *n = (const char *)fh->f_handle + fh->handle_bytes;
    size_t left = room - head - fh->handle_bytes;
    size_t len = strnlen(n, left);
    if (len == left || len > 4096) return 0;
    *name = n;
    *name_len = len;
  }
  return 1;
}

static void take(const struct fanotify_event_metadata *m) {
  if (m->mask & FAN_Q_OVERFLOW) {
    overflow = 1;
    return;
  }
  handle_t dirs[2], obj;
  const char *names[2] = {NULL, NULL};
  size_t lens[2] = {0, 0};
  int ndirs = 0, has_obj = 0;
  const char *p = (const char *)m + m->metadata_len, *end = (const char *)m + m->event_len;
  while (p + sizeof(struct fanotify_event_info_header) <= end) {
    const struct fanotify_event_info_header *h = (const void *)p;
    if (h->len < sizeof *h || p + h->len > end) break;
    const struct fanotify_event_info_fid *f = (const void *)p;
    int t = h->info_type;
    if ((t == FAN_EVENT_INFO_TYPE_DFID_NAME || t == FAN_EVENT_INFO_TYPE_OLD_DFID_NAME || t == FAN_EVENT_INFO_TYPE_NEW_DFID_NAME) && ndirs < 2) {
      if (read_handle(f, h->len, &dirs[ndirs], &names[ndirs], &lens[ndirs])) ndirs++;
    } else if (t == FAN_EVENT_INFO_TYPE_FID) {
      has_obj = read_handle(f, h->len, &obj, NULL, NULL);
    }
    p += h->len;
  }
  uint64_t mask = m->mask & WATCHED;
  if (m->pid != 0) {
    if (ndirs == 0) inside_add(mask, NULL, "", 0, has_obj ? &obj : NULL);
    for (int i = 0; i < ndirs; i++) inside_add(mask, &dirs[i], names[i], lens[i], has_obj ? &obj : NULL);
  } else {
    for (int i = 0; i < ndirs; i++) outside_add(entry_key(&dirs[i], names[i], lens[i]));
    if (has_obj) outside_add(object_key(&obj));
  }
}

static int drain(int fan) {
  static char buf[256 * 1024] __attribute__((aligned(8)));
  for (;;) {
    ssize_t n = read(fan, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return 0;
    if (n <= 0) return -1;
    for (struct fanotify_event_metadata *m = (void *)buf; FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
      if (m->vers != FANOTIFY_METADATA_VERSION) return -1;
      take(m);
      if (m->fd >= 0) close(m->fd);
    }
  }
}

// ---- output ---------------------------------------------------------------------------------------

typedef struct {
  char *data;
  size_t len, cap;
} out_t;

static void put(out_t *o, const char *s, size_t n) {
  if (o->len + n > o->cap) {
    size_t cap = o->cap ? o->cap : 65536;
    while (cap < o->len + n) cap *= 2;
    char *grown = realloc(o->data, cap);
    if (!grown) exit(3);
    o->data = grown;
    o->cap = cap;
  }
  memcpy(o->data + o->len, s, n);
  o->len += n;
}

static void put_hex(out_t *o, const uint8_t *p, size_t n) {
  static const char digits[] = "0123456789abcdef";
  char tmp[2 * MAX_HANDLE + 16];
  for (size_t i = 0; i < n; i++) tmp[2 * i] = digits[p[i] >> 4], tmp[2 * i + 1] = digits[p[i] & 15];
  put(o, tmp, 2 * n);
}

static void put_handle(out_t *o, int32_t type, const uint8_t *bytes, size_t len, int present) {
  char tmp[32];
  if (!present) {
    put(o, "-", 1);
    return;
  }
  put(o, tmp, (size_t)snprintf(tmp, sizeof tmp, "%d:", type));
  put_hex(o, bytes, len);
}

static void put_name(out_t *o, const char *s, size_t n) {
  if (n == 0) {
    put(o, "-", 1);
    return;
  }
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c == '%' || c == '\t' || c == '\n' || c == '\r' || (i == 0 && n == 1 && c == '-')) {
      char tmp[4];
      snprintf(tmp, sizeof tmp, "%%%02X", (unsigned char)c);
      put(o, tmp, 3);
    } else {
      put(o, &c, 1);
    }
  }
}

static void collect(out_t *o) {
  char line[160];
  o->len = 0;
  char flags[64] = "";
  if (overflow) strcat(flags, ",overflow");
  if (cut) strcat(flags, ",cut");
  if (outside_cut) strcat(flags, ",outside-cut");
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  put(o, line,
      (size_t)snprintf(line, sizeof line, "W1\tinside=%u\toutside=%u\tflags=%s\tat=%lld%09ld\n", inside_count, outside_count, flags[0] ? flags + 1 : "-",
                       (long long)now.tv_sec, (long)now.tv_nsec));
  for (uint32_t b = 0; b < inside_buckets; b++) {
    for (record_t *r = inside[b]; r; r = r->next) {
      put(o, line, (size_t)snprintf(line, sizeof line, "I\t%llx\t", (unsigned long long)r->mask));
      put_hex(o, r->fsid, 8);
      put(o, "\t", 1);
      put_handle(o, r->dir_type, rec_dir(r), r->dir_len, r->has_dir);
      put(o, "\t", 1);
      put_name(o, rec_name(r), r->name_len);
      put(o, "\t", 1);
      put_handle(o, r->obj_type, rec_obj(r), r->obj_len, r->has_obj);
      put(o, "\n", 1);
    }
  }
  for (uint32_t i = 0; i < outside_slots; i++) {
    if (outside[i]) put(o, line, (size_t)snprintf(line, sizeof line, "O\t%016llx\n", (unsigned long long)outside[i]));
  }
}

static int write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

static const char *errno_name(int e) {
  switch (e) {
    case EPERM: return "EPERM";
    case EACCES: return "EACCES";
    case EINVAL: return "EINVAL";
    case ENODEV: return "ENODEV";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case EXDEV: return "EXDEV";
    case ENOENT: return "ENOENT";
    case ENOSYS: return "ENOSYS";
    case ENOTDIR: return "ENOTDIR";
    case ENOMEM: return "ENOMEM";
    case ENOSPC: return "ENOSPC";
    case EMFILE: return "EMFILE";
    default: return "EOTHER";
  }
}

// ---- the two calls PID 1 makes (through ctypes) ------------------------------------------------------

/**
 * The fanotify group, with every path's file system marked; -1 when the kernel cannot watch them all.
 * `report` gets "ready" and, per path, "\tok" or "\t" and why (the errno's name); or "failed\t" and why.
 * Called by PID 1 while it still holds CAP_SYS_ADMIN, before it forks anything.
 */
int watch_setup(const char **paths, int count, char *report, int room) {
  int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME_TARGET | FAN_CLOEXEC | FAN_NONBLOCK, O_RDONLY | O_LARGEFILE);
  if (fan < 0) {
    int e = errno;
    snprintf(report, (size_t)room, "failed\tfanotify_init: %s (%s)", strerror(e), errno_name(e));
    return -1;
  }
  int used = snprintf(report, (size_t)room, "ready"), all = 1;
  for (int i = 0; i < count; i++) {
    int ok = fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, WATCHED, AT_FDCWD, paths[i]) == 0;
    const char *what = ok ? "ok" : errno_name(errno);
    all &= ok;
    if (used >= 0 && used < room) used += snprintf(report + used, (size_t)(room - used), "\t%s", what);
  }
  inside = calloc(inside_buckets, sizeof *inside);
  outside = calloc(outside_slots, sizeof *outside);
  if (!all || !inside || !outside) {
    close(fan);
    return -1;
  }
  return fan;
}

/**
 * The watcher's loop, on a thread of PID 1 of its own (ctypes releases the interpreter's lock): PID 1 is the
 * one process `kill -9 -1` never reaches, and no action can trace or read it. Returns when `ctl` closes.
 */
int watch_loop(int fan, int ctl) {
  out_t out = {0};
  struct pollfd fds[2] = {{fan, POLLIN, 0}, {ctl, POLLIN, 0}};
  for (;;) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    if (fds[0].revents & POLLIN && drain(fan) != 0) return 1;
    if (!(fds[1].revents & (POLLIN | POLLHUP))) continue;
    char cmd;
    ssize_t n = read(ctl, &cmd, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0; // the runner is gone
    if (drain(fan) != 0) return 1;
    if (cmd == 'B') {
      forget();
      if (write_all(ctl, "b", 1) != 0) return 1;
    } else if (cmd == 'E') {
      collect(&out);
      forget();
      uint8_t head[4] = {(uint8_t)(out.len >> 24), (uint8_t)(out.len >> 16), (uint8_t)(out.len >> 8), (uint8_t)out.len};
      if (write_all(ctl, (const char *)head, 4) != 0 || write_all(ctl, out.data, out.len) != 0) return 1;
    }
  }
}
