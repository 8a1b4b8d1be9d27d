#!/usr/bin/python3 -s
# PID 1 of every Posthoc sandbox container, written into the image by `posthoc sandbox build` at
# /usr/local/bin/posthoc-init. It runs with python3 -s: the user site (PYTHONUSERBASE, the task's own
# environment, which actions write) is never read at PID 1's start — a .pth file planted there would
# otherwise run as root before anything else; actions add it to their own sys.path (add_user_site). It
# is Python (the image has python3 and nothing else to run it), read by main/sandbox/sandbox-image.ts, and
# checked by pyflakes in `npm run lint`.
#
# - PID 1 and the action runner are uid 0 of the container with six capabilities (container-policy.ts
#   RUNNER_CAPABILITIES) and not dumpable; actions run as the action user (POSTHOC_ACTION_UID/GID) with
#   an empty bounding set and no capability at all — but a root-owned folder's action (uid 0) keeps CHOWN
#   and FOWNER only (ROOT_ACTION_CAPS). So action code can neither trace, signal nor read the
#   memory of PID 1 or the runner (the seccomp profile also refuses ptrace and process_vm_* outright).
# - PID 1 reaps orphans and installs no signal handlers: inside its PID namespace it ignores every
#   signal it has no handler for, so no action can take the container down. The host still removes it.
# - Before any thread starts it forks the action runner, which connects to the host's control socket
#   (see main/sandbox/action-channel.ts) and runs each action it is sent in a forked session — Python
#   in the already started interpreter, so an action pays neither a `docker exec` nor an interpreter
#   start-up — streams its output, stops it at the timeout or when the host says stop, and then SIGKILLs
#   every other process until none is left and says whether that worked: nothing of an action outlives it.
#   It then hands the host what the action changed (main/sandbox/claims.ts): the kernel's account, from the
#   watcher below, or where the kernel cannot watch, the claim log the preload library wrote) and its figures (PNGs that matplotlib's backend in the image,
#   posthoc_figures.py, wrote into the figures tmpfs; read only after every process of the action has
#   ended, each a regular file opened without following links, within the limits below) before the exit frame.
# - A thread relays 127.0.0.1:$POSTHOC_RELAY_PORT to the gateway's unix socket (mounted at
#   /run/posthoc), so any HTTP client in the sandbox reaches $POSTHOC_GATEWAY. There is no other network.
#   It is one thread with a selector for every connection, with bounded buffers: a flood of connections
#   is answered 503 past a limit instead of taking the relay down.
# - The watcher (image/posthoc-watch.c, a C library PID 1 loads): before anything else runs, while the container
#   still holds CAP_SYS_ADMIN, PID 1 marks the file system of every writable granted folder for fanotify
#   (POSTHOC_WATCH), then drops CAP_SYS_ADMIN from every set for good. The watcher's loop runs on a thread of
#   PID 1 (which `kill -9 -1` never reaches); the runner asks it, over a socketpair no action holds, to
#   forget (B) before each action and for what it saw (E) after it. Where it cannot start, the claim
#   library's log is the record, and R says why.
# - R tells the host how changes are recorded and, per granted folder, the device and inode mounted there
#   (POSTHOC_ROOTS): the host removes a container whose folder is not the one granted before anything runs.
# - `posthoc-init mcp COMMAND ARGS...` (an MCP server's container, main/sandbox/mcp-container.ts): no action
#   runner. PID 1 connects to the host's control socket first (so nothing the server runs can take its
#   place), then forks COMMAND as the action user exactly as an action starts (become_action_user: bounding
#   set emptied, every capability cleared) once the host has checked the mounted folders (R, then the host's
#   G), its stdin, stdout and stderr the container's own (the host's attached MCP stdio). The relay runs as
#   for actions. On the host's C frame PID 1 answers with what the server changed since the last C: the
#   watcher's collection (first byte 3), or the claim log's new lines (0 whole, 1 cut, 2 missing). When the server
#   exits, PID 1 ends what is left and exits with its status, so the container stops.
import ctypes
import errno
import json
import os
import resource
import select
import selectors
import shutil
import signal
import socket
import stat
import struct
import sys
import threading
import time

SOCKET_PATH = os.environ.get('POSTHOC_GATEWAY_SOCKET', '/run/posthoc/gateway.sock')
CONTROL_PATH = '/run/posthoc-control/control.sock'
LIBC = ctypes.CDLL(None, use_errno=True)
PORT = int(os.environ.get('POSTHOC_RELAY_PORT', '8080'))
ACTION_UID = int(os.environ.get('POSTHOC_ACTION_UID', str(os.getuid())))
ACTION_GID = int(os.environ.get('POSTHOC_ACTION_GID', str(os.getgid())))
WORK_PREFIX = '.posthoc-run-'
# The claim log has a tmpfs of its own (container-policy.ts), so an action filling /tmp cannot cost it
# lines; the claim library writes there whatever the environment says.
CLAIMS_DIR = '/run/posthoc-claims'
CLAIMS = CLAIMS_DIR + '/log'
CLAIMS_ROOM = 1024 * 1024
CLAIMS_LIMIT = 64 * 1024 * 1024
# Figures of the action (posthoc_figures.py writes them; main/effects/figures/ checks them again on the host).
FIGURES_DIR = '/run/posthoc-figures'
FIGURES_MAX = 20
FIGURE_BYTES = 8 * 1024 * 1024
FIGURES_TOTAL = 64 * 1024 * 1024
PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
CAP_SYS_ADMIN = 21
CAP_DAC_READ_SEARCH = 2
# The kernel's account of what the sandbox changed (image/posthoc-watch.c): started while PID 1 still holds
# CAP_SYS_ADMIN, which PID 1 then drops for good. POSTHOC_WATCH: the writable granted folders, as JSON.
WATCH_LIB = '/usr/local/lib/posthoc-watch.so'
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4

# Every signal a process may ignore, but SIGCHLD (ignoring it would reap children before waitpid sees them).
CATCHABLE = [s for s in signal.valid_signals() if s not in (signal.SIGKILL, signal.SIGSTOP, signal.SIGCHLD)]


def ignore_signals():
    # PID 1 and the runner ignore every signal they can: a root-owned folder's action shares their uid
    # and may signal them; only SIGKILL and SIGSTOP remain (PID 1 of a namespace is immune even to those
    # from inside it; a runner stopped or killed is found by the host, which removes the container).
    for sig in CATCHABLE:
        try:
            signal.signal(sig, signal.SIG_IGN)
        except (OSError, ValueError):
            pass


ignore_signals()

# Not dumpable from the first instruction on: no process of another uid, and none without
# CAP_SYS_PTRACE, can open /proc/1/mem or attach; the runner inherits it.
LIBC.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
UNAVAILABLE = (
    b'{"error": "The Posthoc gateway is not available to this task. Services and databases are reached only through it."}'
)
BUSY = b'{"error": "Too many connections to the Posthoc gateway at once from this sandbox; close some and retry."}'
RELAY_MAX_CONNECTIONS = 512
RELAY_BUFFER = 256 * 1024


class Pipe:
    # One direction of a relayed connection: bytes read from src wait in buf until dst takes them. At most
    # RELAY_BUFFER bytes wait: then src is not read until dst drains (backpressure, bounded memory).
    def __init__(self, src, dst):
        self.src = src
        self.dst = dst
        self.buf = bytearray()
        self.eof = False
        self.shut = False
        self.other = None


class Relay:
    # 127.0.0.1:PORT → the gateway's unix socket, for every HTTP client in the sandbox. One thread and one
    # selector for all connections: a thread per connection would count against the container's process
    # limit, and a flood of connections then killed the relay. Over RELAY_MAX_CONNECTIONS at once, new ones
    # are answered 503 and closed at once; the relay itself stays up.
    def __init__(self):
        self.sel = selectors.DefaultSelector()
        self.pipes = {}
        self.count = 0
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(('127.0.0.1', PORT))
        server.listen(256)
        server.setblocking(False)
        self.server = server
        self.sel.register(server, selectors.EVENT_READ)

    def refuse(self, client, body):
        head = 'HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n'
        try:
            client.setblocking(False)
            client.send((head % len(body)).encode() + body)
        except OSError:
            pass
        client.close()

    def accept(self):
        try:
            client, _ = self.server.accept()
        except OSError:
            return
        if self.count >= RELAY_MAX_CONNECTIONS:
            self.refuse(client, BUSY)
            return
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(SOCKET_PATH)
        except OSError:
            upstream.close()
            self.refuse(client, UNAVAILABLE)
            return
        client.setblocking(False)
        upstream.setblocking(False)
        self.count += 1
        up = Pipe(client, upstream)
        down = Pipe(upstream, client)
        up.other = down
        down.other = up
        self.pipes[client] = up
        self.pipes[upstream] = down
        self.update(client)
        self.update(upstream)

    def update(self, sock):
        # A socket is read while its pipe has room and not yet its end, written while the pipe into it
        # has bytes waiting.
        mine = self.pipes[sock]
        events = 0
        if not mine.eof and len(mine.buf) < RELAY_BUFFER:
            events |= selectors.EVENT_READ
        if mine.other.buf:
            events |= selectors.EVENT_WRITE
        try:
            key = self.sel.get_key(sock)
        except KeyError:
            key = None
        if events and key is None:
            self.sel.register(sock, events)
        elif events and key.events != events:
            self.sel.modify(sock, events)
        elif not events and key is not None:
            self.sel.unregister(sock)

    def close(self, sock):
        mine = self.pipes.get(sock)
        if mine is None:
            return
        for s in (mine.src, mine.dst):
            self.pipes.pop(s, None)
            try:
                self.sel.unregister(s)
            except (KeyError, ValueError):
                pass
            s.close()
        self.count -= 1

    def step(self, sock, events):
        mine = self.pipes[sock]
        if events & selectors.EVENT_READ:
            try:
                data = sock.recv(65536)
            except BlockingIOError:
                data = None
            except OSError:
                self.close(sock)
                return
            if data:
                mine.buf += data
            elif data is not None:
                mine.eof = True
        if events & selectors.EVENT_WRITE:
            inbound = mine.other
            try:
                sent = sock.send(inbound.buf)
                del inbound.buf[:sent]
            except BlockingIOError:
                pass
            except OSError:
                self.close(sock)
                return
        for pipe in (mine, mine.other):
            if pipe.eof and not pipe.buf and not pipe.shut:
                # Everything this side sent has been passed on: pass its end on too.
                pipe.shut = True
                try:
                    pipe.dst.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
        if mine.shut and mine.other.shut:
            self.close(sock)
            return
        self.update(mine.src)
        self.update(mine.dst)

    def run(self):
        while True:
            for key, events in self.sel.select():
                if key.fileobj is self.server:
                    self.accept()
                elif key.fileobj in self.pipes:
                    self.step(key.fileobj, events)


def relay():
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ValueError, OSError):
        pass
    Relay().run()


def live_others():
    # Processes other than PID 1 and this one that are not zombies (a zombie holds nothing but its PID,
    # and PID 1 reaps it).
    me = os.getpid()
    found = []
    for entry in os.listdir('/proc'):
        if not entry.isdigit() or int(entry) in (1, me):
            continue
        try:
            with open('/proc/%s/stat' % entry) as f:
                state = f.read().rsplit(')', 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != 'Z':
            found.append(int(entry))
    return found


def cleanup():
    # SIGKILL everything but PID 1 and this process (CAP_KILL: whatever uid the action had), again and
    # again, until nothing is left: a fork bomb keeps forking while the first sweep runs. Returns how
    # many processes survived; the host removes the whole container when any did.
    deadline = time.time() + 10
    while True:
        try:
            os.kill(-1, 9)
        except OSError:
            pass
        left = live_others()
        if not left or time.time() >= deadline:
            return len(left)
        time.sleep(0.05)


def fresh_work_dir():
    # A new folder of the runner's (root, 0755) for each action, under a name nobody could have
    # prepared: the action can read its code there but neither replace the folder nor plant anything in
    # it. Earlier ones go (best effort: a root-owned folder's action may have left something in the way,
    # which must never stop the next action).
    for name in os.listdir('/tmp'):
        if name.startswith(WORK_PREFIX):
            shutil.rmtree('/tmp/' + name, ignore_errors=True)
    while True:
        path = '/tmp/%s%s' % (WORK_PREFIX, os.urandom(8).hex())
        try:
            os.mkdir(path, 0o755)
        except FileExistsError:
            continue
        os.chmod(path, 0o755)
        return path


def write_private(path, data, mode):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    try:
        os.fchmod(fd, mode)
        os.write(fd, data)
    finally:
        os.close(fd)


def drop_admin():
    # CAP_SYS_ADMIN and CAP_DAC_READ_SEARCH served only to set up the watch (fanotify_mark reads the folder,
    # which may be the person's, mode 0700): out of PID 1's bounding, permitted, effective and inheritable
    # sets before anything else starts (the runner, the relay, an MCP server).
    for cap in (CAP_SYS_ADMIN, CAP_DAC_READ_SEARCH):
        LIBC.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)
    data = (ctypes.c_uint32 * 6)()
    if LIBC.capget(header, data) != 0:
        raise OSError(ctypes.get_errno(), 'could not read capabilities')
    for i in range(3):
        # effective, permitted, inheritable of capabilities 0-31
        data[i] &= ~((1 << CAP_SYS_ADMIN) | (1 << CAP_DAC_READ_SEARCH))
    if LIBC.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), 'could not drop the watch capabilities')


def start_watch():
    # Returns (the runner's end of a socketpair to the watcher, None) when the kernel watches every
    # writable granted folder, else (None, why): then the claim library's log is the record, as before. The
    # watcher's loop starts later (start_watch_loop), on a thread of PID 1, once the runner has been forked.
    try:
        paths = [str(p) for p in json.loads(os.environ.get('POSTHOC_WATCH', '[]'))]
    except ValueError:
        paths = []
    if not paths:
        return None, 'no writable folder to watch'
    try:
        lib = ctypes.CDLL(WATCH_LIB, use_errno=True)
    except OSError:
        return None, 'this image has no posthoc-watch library'
    report = ctypes.create_string_buffer(4096)
    argv = (ctypes.c_char_p * len(paths))(*[p.encode() for p in paths])
    fan = lib.watch_setup(argv, len(paths), report, len(report))
    words = report.value.decode('utf-8', 'replace').split('\t')
    if fan < 0:
        if words[:1] == ['failed']:
            return None, 'the kernel watch could not start: ' + ' '.join(words[1:])
        return None, 'the kernel cannot watch ' + ', '.join('%s (%s)' % (p, w) for p, w in zip(paths, words[1:]) if w != 'ok')
    mine, theirs = socket.socketpair()
    global WATCH_THREAD_ARGS
    WATCH_THREAD_ARGS = (lib, fan, theirs)
    return mine, None


WATCH_THREAD_ARGS = None


def start_watch_loop():
    # PID 1, after the runner (or the MCP server) was forked: close what only the watcher may hold in every
    # other process, and run its loop on a thread of PID 1.
    if WATCH_THREAD_ARGS is None:
        return
    lib, fan, theirs = WATCH_THREAD_ARGS
    lib.watch_loop.argtypes = [ctypes.c_int, ctypes.c_int]
    threading.Thread(target=lib.watch_loop, args=(fan, theirs.fileno()), daemon=True).start()


def close_watch_in_child():
    # In any process forked from PID 1: the fanotify group and the watcher's end are PID 1's alone (reading
    # the group would take events away from the watcher).
    if WATCH_THREAD_ARGS is not None:
        lib, fan, theirs = WATCH_THREAD_ARGS
        try:
            os.close(fan)
        except OSError:
            pass
        theirs.close()


def watch_begin(watch):
    # The action starts now: what the watcher saw before (the host's own work while the container was frozen)
    # is forgotten. False when the watcher is gone.
    try:
        watch.sendall(b'B')
        return read_exact(watch, 1) == b'b'
    except OSError:
        return False


def watch_collect(watch):
    # What the kernel saw since the last collection, as the C frame's payload (first byte 3: the kernel's
    # account; 2: missing, the watcher is gone).
    try:
        watch.sendall(b'E')
        head = read_exact(watch, 4)
        if head is None:
            return b'\x02'
        body = read_exact(watch, struct.unpack('>I', head)[0])
        return b'\x02' if body is None else b'\x03' + body
    except OSError:
        return b'\x02'


def roots():
    # Each granted folder as mounted: the host checks it is the folder it granted (device and inode), so a
    # folder swapped for a link before the container started is never worked in.
    try:
        mounts = json.loads(os.environ.get('POSTHOC_ROOTS', '[]'))
    except ValueError:
        mounts = []
    found = []
    for path in mounts:
        try:
            st = os.stat(str(path), follow_symlinks=False)
            found.append({'path': path, 'dev': str(st.st_dev), 'ino': str(st.st_ino)})
        except OSError as e:
            found.append({'path': path, 'error': os.strerror(e.errno) if e.errno else str(e)})
    return found


def canary_path(pid):
    return '/tmp/.posthoc-canary-%d' % pid


def claim_canary():
    # In the action, before its code: create and remove a file of its own, which the claim library
    # records like any other write. A log without that line means the library did not work in the
    # action (not loaded, or off), and then the log proves nothing: the host is told it is missing.
    path = canary_path(os.getpid())
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600))
        os.unlink(path)
    except OSError:
        pass


def fresh_claims_log():
    # A new, empty, regular file: whatever a root-owned folder's action left at that name (a FIFO that
    # would block the runner, a folder, a link) is removed first.
    try:
        os.unlink(CLAIMS)
    except IsADirectoryError:
        shutil.rmtree(CLAIMS, ignore_errors=True)
    except FileNotFoundError:
        pass
    fd = os.open(CLAIMS, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
    os.fchmod(fd, 0o666)
    os.close(fd)


def read_claims(pid):
    # The claim log as written by the action's processes (all ended now), cut at CLAIMS_LIMIT.
    try:
        fd = os.open(CLAIMS, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return b'\x02'
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return b'\x02'
    try:
        chunks = []
        size = 0
        while size <= CLAIMS_LIMIT:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    data = b''.join(chunks)
    if b'\t' + canary_path(pid).encode() + b'\n' not in data[:8192]:
        return b'\x02'
    try:
        room = os.statvfs(CLAIMS_DIR)
        full = room.f_bavail * room.f_frsize < CLAIMS_ROOM
    except OSError:
        full = True
    # A log whose file system filled up may have lost lines: it counts as cut, not whole.
    if len(data) > CLAIMS_LIMIT or full:
        return b'\x01' + data[:CLAIMS_LIMIT]
    return b'\x00' + data


def empty_figures():
    # Before and after each action: nothing of an earlier action is ever handed over as this one's. The
    # folder is the tmpfs's root (root's, 1777): as its owner the runner may unlink any entry in it (a
    # folder the action made unreadable inside it stays, and is never read: only regular files at the top are).
    try:
        os.chmod(FIGURES_DIR, 0o1777)
        names = os.listdir(FIGURES_DIR)
    except OSError:
        return
    for name in names:
        path = FIGURES_DIR + '/' + name
        try:
            os.unlink(path)
        except IsADirectoryError:
            shutil.rmtree(path, ignore_errors=True)
        except OSError:
            pass


def collect_figures():
    # The action's figures, oldest first: regular files named *.png at the folder's top, opened relative to
    # the folder without following links and without blocking (a FIFO is not a figure), each at most
    # FIGURE_BYTES, at most FIGURES_MAX of them and FIGURES_TOTAL together. Returns (figures, refusals).
    figures = []
    refused = []
    try:
        dfd = os.open(FIGURES_DIR, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return figures, refused
    try:
        names = sorted(n for n in os.listdir(dfd) if n.endswith('.png') and not n.startswith('.'))
        total = 0
        for name in names:
            if len(figures) >= FIGURES_MAX:
                refused.append('more than %d figures: the rest were not kept' % FIGURES_MAX)
                break
            try:
                fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dfd)
            except OSError as e:
                refused.append('a figure could not be opened (%s)' % (os.strerror(e.errno) if e.errno else e))
                continue
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    refused.append('a figure that was not a regular file')
                    continue
                chunks = []
                size = 0
                while size <= FIGURE_BYTES:
                    chunk = os.read(fd, 1 << 20)
                    if not chunk:
                        break
                    chunks.append(chunk)
                    size += len(chunk)
            except OSError:
                refused.append('a figure could not be read')
                continue
            finally:
                os.close(fd)
            if size > FIGURE_BYTES:
                refused.append('a figure over %d MiB' % (FIGURE_BYTES >> 20))
                continue
            if total + size > FIGURES_TOTAL:
                refused.append('figures over %d MiB together: the rest were not kept' % (FIGURES_TOTAL >> 20))
                break
            total += size
            figures.append(b''.join(chunks))
    finally:
        os.close(dfd)
    return figures, refused


# What a root-owned folder's action keeps, being root as on a machine inside its container: CAP_CHOWN and
# CAP_FOWNER, so tar -x, cp -a and chown work on its own files (the host gives a granted folder's files
# back to the folder's owner after the action, fs-channel.ts). Nothing else, and nothing for another uid.
ROOT_ACTION_CAPS = (1 << 0) | (1 << 3)


def become_action_user():
    # In the forked action, before anything of the action runs: empty the bounding set (so nothing it
    # executes can ever regain a capability, even as uid 0) but for what a root action keeps, clear ambient
    # capabilities, take the action user's ids, then set every capability set to that, and check it.
    keep = ROOT_ACTION_CAPS if ACTION_UID == 0 else 0
    for cap in range(64):
        if keep & (1 << cap):
            continue
        if LIBC.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            if ctypes.get_errno() == errno.EINVAL:
                break
            raise OSError(ctypes.get_errno(), 'could not drop capability %d' % cap)
    LIBC.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    os.setgroups([])
    os.setresgid(ACTION_GID, ACTION_GID, ACTION_GID)
    os.setresuid(ACTION_UID, ACTION_UID, ACTION_UID)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)
    data = (ctypes.c_uint32 * 6)(keep, keep, 0, 0, 0, 0)
    if LIBC.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), 'could not set capabilities')
    expected = {'CapInh:': 0, 'CapPrm:': keep, 'CapEff:': keep, 'CapBnd:': keep, 'CapAmb:': 0}
    with open('/proc/self/status') as f:
        for line in f:
            key = line.split(':')[0] + ':'
            if key in expected and int(line.split()[1], 16) != expected[key]:
                raise OSError(errno.EPERM, 'capabilities other than expected: ' + line.strip())
    # Changing uid made the process non-dumpable; the action's own processes behave as any program's.
    LIBC.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)


def add_user_site():
    # Packages an earlier action installed into the task's environment (pip --user into PYTHONUSERBASE,
    # see container-policy.ts) did not exist when this interpreter started, so site.py skipped the folder:
    # add it now, ahead of the image's own packages (as a fresh interpreter would), with its .pth files.
    import importlib
    import site
    user_site = site.getusersitepackages()
    if os.environ.get('PYTHONUSERBASE') and os.path.isdir(user_site) and user_site not in sys.path:
        before = list(sys.path)
        site.addsitedir(user_site)
        added = [p for p in sys.path if p not in before]
        at = next((i for i, p in enumerate(before) if p.endswith(('dist-packages', 'site-packages'))), len(before))
        sys.path[:] = before[:at] + added + before[at:]
    importlib.invalidate_caches()


DEBIAN_ROOT = '/posthoc-env/debian'


def debian_env():
    # Debian packages apt-get unpacked into the task's own environment (image/posthoc_apt.py): their
    # libraries, headers, Python, Perl and Ruby modules and gems, for the action's processes only (never
    # PID 1's or the runner's: actions write that folder). Set whether or not anything is installed yet, so
    # a program installed by this very action finds its libraries (apt-get install ruby && ruby ...). The
    # versioned folders are those of the image's own release, bookworm: the only one the gateway serves.
    # PATH already lists their programs (container-policy.ts).
    triplet = {'x86_64': 'x86_64-linux-gnu', 'aarch64': 'aarch64-linux-gnu'}.get(os.uname().machine, os.uname().machine + '-linux-gnu')
    r = DEBIAN_ROOT

    def prepend(name, *dirs):
        os.environ[name] = ':'.join(list(dirs) + [p for p in os.environ.get(name, '').split(':') if p])

    prepend('LD_LIBRARY_PATH', r + '/usr/lib/' + triplet, r + '/lib/' + triplet, r + '/usr/lib')
    prepend('LIBRARY_PATH', r + '/usr/lib/' + triplet, r + '/usr/lib')
    prepend('CPATH', r + '/usr/include/' + triplet, r + '/usr/include')
    prepend('PKG_CONFIG_PATH', r + '/usr/lib/' + triplet + '/pkgconfig', r + '/usr/share/pkgconfig', r + '/usr/lib/pkgconfig')
    prepend('PERL5LIB', r + '/usr/share/perl5', r + '/usr/lib/' + triplet + '/perl5/5.36')
    prepend('PYTHONPATH', r + '/usr/lib/python3/dist-packages')
    prepend('RUBYLIB', r + '/usr/lib/ruby/vendor_ruby', r + '/usr/lib/ruby/3.1.0', r + '/usr/lib/' + triplet + '/ruby/3.1.0')
    prepend('GEM_PATH', r + '/usr/share/rubygems-integration/all', r + '/usr/lib/ruby/gems/3.1.0', r + '/var/lib/gems/3.1.0')
    for p in os.environ['PYTHONPATH'].split(':'):
        if p.startswith(r) and p not in sys.path:
            sys.path.append(p)


def run_python(path, source):
    # Runs the action's code in this freshly forked process: no interpreter start-up per action.
    import builtins
    import traceback
    sys.argv = [path]
    sys.path[0] = ''
    add_user_site()
    scope = {'__name__': '__main__', '__file__': path, '__builtins__': builtins}
    try:
        exec(compile(source, path, 'exec'), scope)
    except SystemExit as e:
        if e.code is None:
            return 0
        if isinstance(e.code, int):
            return e.code
        print(e.code, file=sys.stderr)
        return 1
    except BaseException as e:
        traceback.print_exception(type(e), e, e.__traceback__.tb_next)
        return 1
    return 0


def send_frame(conn, kind, payload):
    conn.sendall(kind + struct.pack('>I', len(payload)) + payload)


def read_exact(conn, n):
    data = b''
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def start_action(conn, request):
    # Forks the action into its own session with its own stdout and stderr pipes. The child gets
    # nothing of the runner's: not the control connection, not its non-dumpable flag.
    language = request['language']
    source = request['source'].encode()
    work = fresh_work_dir()
    path = work + '/action.' + ('py' if language == 'python' else 'sh')
    write_private(path, source, 0o644)
    global WATCH
    if WATCH is not None and not watch_begin(WATCH):
        # The watcher is gone: from now on the claim library's log is the record.
        WATCH = None
    if WATCH is None:
        fresh_claims_log()
    empty_figures()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 127
        try:
            conn.close()
            if WATCH is not None:
                # The action never reaches the watcher: it could make it forget what it saw.
                WATCH.close()
            os.close(out_r)
            os.close(err_r)
            os.setsid()
            become_action_user()
            claim_canary()
            # The runner ignores every signal it can; the action gets the dispositions any program starts
            # with: a shell the defaults, Python code Python's own (SIGINT raises KeyboardInterrupt; SIGPIPE
            # and SIGXFSZ ignored, so a closed pipe is a BrokenPipeError, as in any python3 process).
            for sig in CATCHABLE:
                signal.signal(sig, signal.SIG_DFL)
            if language == 'python':
                signal.signal(signal.SIGINT, signal.default_int_handler)
                signal.signal(signal.SIGPIPE, signal.SIG_IGN)
                signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            devnull = os.open('/dev/null', os.O_RDONLY)
            os.dup2(devnull, 0)
            os.dup2(out_w, 1)
            os.dup2(err_w, 2)
            for fd in (devnull, out_w, err_w):
                os.close(fd)
            sys.stdin = open(0, 'r', closefd=False)
            debian_env()
            if language == 'python':
                code = run_python(path, source)
            else:
                shell = 'bash' if language == 'bash' else 'sh'
                os.execvp(shell, [shell, path])
        except BaseException as e:
            print('posthoc: could not start the action: %s' % e, file=sys.stderr)
        sys.exit(code)
    os.close(out_w)
    os.close(err_w)
    return pid, {out_r: b'O', err_r: b'E'}


def run_action(conn, request):
    # One action: stream its output as frames, stop it at the timeout or when the host sends K, end
    # every process it left behind, hand over its claim log (C), and answer with its exit code (124 on
    # timeout, 128+N when signal N ended it) and whether anything survived (X).
    pid, pipes = start_action(conn, request)
    deadline = time.monotonic() + float(request['timeout'])
    status = None
    timed_out = False
    stopped = False
    while pipes:
        wait = deadline - time.monotonic()
        if wait <= 0 and status is None and not stopped:
            timed_out = True
            try:
                os.killpg(pid, 9)
            except OSError:
                pass
        if status is None:
            done, st = os.waitpid(pid, os.WNOHANG)
            if done == pid:
                status = st
        if status is not None or timed_out or stopped:
            # The action is over; whatever still holds its pipes is a leftover and is ended now.
            ready, _, _ = select.select(list(pipes), [], [], 0.02)
            if not ready:
                cleanup()
                ready, _, _ = select.select(list(pipes), [], [], 1)
                if not ready:
                    break
        else:
            ready, _, _ = select.select(list(pipes) + [conn], [], [], min(max(wait, 0), 0.05))
            if conn in ready:
                ready.remove(conn)
                head = read_exact(conn, 5)
                if head is None:
                    # The host is gone: end everything; the container is removed or found orphaned.
                    cleanup()
                    os._exit(0)
                read_exact(conn, struct.unpack('>I', head[1:])[0])
                if head[:1] == b'K':
                    stopped = True
                    try:
                        os.killpg(pid, 9)
                    except OSError:
                        pass
                    cleanup()
        for fd in ready:
            data = os.read(fd, 65536)
            if data:
                send_frame(conn, pipes[fd], data)
            else:
                os.close(fd)
                del pipes[fd]
    for fd in list(pipes):
        os.close(fd)
    if status is None:
        _, status = os.waitpid(pid, 0)
    leftovers = cleanup()
    send_frame(conn, b'C', watch_collect(WATCH) if WATCH is not None else read_claims(pid))
    # Only once nothing of the action runs: a process that outlived it cannot add or swap a figure now.
    if leftovers == 0:
        figures, figures_refused = collect_figures()
    else:
        figures, figures_refused = [], ['figures were not kept: processes of the action outlived its cleanup']
    for figure in figures:
        send_frame(conn, b'G', figure)
    empty_figures()
    if timed_out:
        code = 124
    elif os.WIFSIGNALED(status):
        code = 128 + os.WTERMSIG(status)
    else:
        code = os.WEXITSTATUS(status)
    send_frame(conn, b'X', json.dumps({'exitCode': code, 'timedOut': timed_out, 'stopped': stopped, 'leftovers': leftovers, 'figuresRefused': figures_refused}).encode())


def runner():
    # The action runner: forked by PID 1 before any thread starts, connected to the host over the
    # control socket (mounted read-only at /run/posthoc-control). The host accepts only the first
    # connection of a container, made before any action runs. Not dumpable and of another uid than
    # actions: they can neither ptrace it nor reach its descriptors through /proc.
    LIBC.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    for _ in range(200):
        try:
            conn.connect(CONTROL_PATH)
            break
        except OSError:
            time.sleep(0.025)
    else:
        os._exit(1)
    send_frame(conn, b'R', json.dumps({'watch': 'kernel' if WATCH is not None else 'library', 'why': WATCH_WHY, 'roots': roots()}).encode())
    while True:
        head = read_exact(conn, 5)
        if head is None:
            os._exit(0)
        body = read_exact(conn, struct.unpack('>I', head[1:])[0])
        if body is None:
            os._exit(0)
        if head[:1] == b'A':
            run_action(conn, json.loads(body))


def connect_control():
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    for _ in range(200):
        try:
            conn.connect(CONTROL_PATH)
            return conn
        except OSError:
            time.sleep(0.025)
    return None


def claims_since(pid, offset):
    # The claim log's complete lines from offset on (the server's processes keep writing it between
    # calls' reads, so only whole lines are taken; the rest waits for the next read). Returns the C frame's
    # payload and the new offset.
    try:
        fd = os.open(CLAIMS, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return b'\x02', offset
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return b'\x02', offset
        if b'\t' + canary_path(pid).encode() + b'\n' not in os.pread(fd, 8192, 0):
            return b'\x02', offset
        if st.st_size < offset:
            # Cut short by someone: lines may be lost.
            return b'\x01', st.st_size
        chunks = []
        size = 0
        while size <= CLAIMS_LIMIT:
            chunk = os.pread(fd, 1 << 20, offset + size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    data = b''.join(chunks)
    if len(data) > CLAIMS_LIMIT:
        return b'\x01' + data[:CLAIMS_LIMIT], offset + len(data)
    end = data.rfind(b'\n') + 1
    try:
        room = os.statvfs(CLAIMS_DIR)
        full = room.f_bavail * room.f_frsize < CLAIMS_ROOM
    except OSError:
        full = True
    return (b'\x01' if full else b'\x00') + data[:end], offset + end


def mcp_claims(conn, pid):
    offset = 0
    while True:
        head = read_exact(conn, 5)
        if head is None:
            return
        body = read_exact(conn, struct.unpack('>I', head[1:])[0])
        if body is None:
            return
        if head[:1] == b'C':
            if WATCH is not None:
                payload = watch_collect(WATCH)
            else:
                payload, offset = claims_since(pid, offset)
            send_frame(conn, b'C', payload)


def server_env():
    # The container's environment without what only PID 1 needs.
    env = dict(os.environ)
    for key in ('POSTHOC_ACTION_UID', 'POSTHOC_ACTION_GID', 'POSTHOC_RELAY_PORT', 'POSTHOC_GATEWAY_SOCKET', 'MPLBACKEND'):
        env.pop(key, None)
    return env


def mcp_main(argv):
    conn = None
    if os.path.exists(CONTROL_PATH):
        conn = connect_control()
        if conn is None:
            print('posthoc: the MCP container could not reach Posthoc (control socket)', file=sys.stderr)
            os._exit(1)
        send_frame(conn, b'R', json.dumps({'watch': 'kernel' if WATCH is not None else 'library', 'why': WATCH_WHY, 'roots': roots()}).encode())
        # The host checks the mounted folders are the granted ones before the server may start (G).
        head = read_exact(conn, 5)
        if head is None or head[:1] != b'G' or read_exact(conn, struct.unpack('>I', head[1:])[0]) is None:
            print('posthoc: Posthoc did not let the MCP server start (its folders are not the ones granted)', file=sys.stderr)
            os._exit(1)
    if WATCH is None:
        fresh_claims_log()
    pid = os.fork()
    if pid == 0:
        try:
            if conn is not None:
                conn.close()
            close_watch_in_child()
            if WATCH is not None:
                WATCH.close()
            os.setsid()
            become_action_user()
            claim_canary()
            for sig in CATCHABLE:
                signal.signal(sig, signal.SIG_DFL)
            os.execvpe(argv[0], argv, server_env())
        except BaseException as e:
            print('posthoc: could not start the server %s: %s' % (argv[0] if argv else '(none)', e), file=sys.stderr)
        os._exit(127)
    # PID 1 keeps nothing of the server's stdio: its stdout is the MCP channel.
    devnull = os.open('/dev/null', os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.close(devnull)
    start_watch_loop()
    threading.Thread(target=relay, daemon=True).start()
    if conn is not None:
        threading.Thread(target=mcp_claims, args=(conn, pid), daemon=True).start()
    while True:
        try:
            done, status = os.waitpid(-1, 0)
        except OSError:
            time.sleep(0.2)
            continue
        if done == pid:
            cleanup()
            if os.WIFSIGNALED(status):
                os._exit(128 + os.WTERMSIG(status))
            os._exit(os.WEXITSTATUS(status))


# Before any other process or thread: the watch (while PID 1 still holds CAP_SYS_ADMIN), then that
# capability goes for good, whether or not the watch started.
WATCH, WATCH_WHY = start_watch()
drop_admin()

if len(sys.argv) > 1 and sys.argv[1] == 'mcp':
    mcp_main(sys.argv[2:])

if os.path.exists(CONTROL_PATH):
    if os.fork() == 0:
        close_watch_in_child()
        runner()
        os._exit(0)
# The runner holds its end of the watcher's socket; PID 1 keeps only the watcher's.
if WATCH is not None:
    WATCH.close()
    WATCH = None
start_watch_loop()

threading.Thread(target=relay, daemon=True).start()

while True:
    try:
        # Orphans are re-parented to PID 1: reap each as soon as it exits.
        os.waitpid(-1, 0)
    except OSError:
        time.sleep(0.2)
