// PID 1 of every Posthoc sandbox container, written into the image by `posthoc sandbox build` at
// /usr/local/bin/posthoc-init. It is Python (the image has python3 and nothing else to run it), kept as
// a raw string here so every runner (the bundler, vitest, tsx for the benchmarks) loads it the same way.
//
// - Reaps orphaned processes, so zombies never pile up against the process limit.
// - Installs no signal handlers: inside its own PID namespace, PID 1 ignores every signal it has no
//   handler for, so an action's `kill -9 -1` cannot take the container down. The host still removes it.
// - `posthoc-init --cleanup`, run after every action, SIGKILLs every other process until none is left:
//   background jobs and a fork bomb's children end with the action.
// - Relays 127.0.0.1:$POSTHOC_RELAY_PORT to the gateway's unix socket (mounted at /run/posthoc), so any
//   HTTP client in the sandbox reaches the gateway through $POSTHOC_GATEWAY. There is no other network.
export const INIT_SCRIPT = String.raw`#!/usr/bin/python3
# Posthoc sandbox init: reaper, per-action cleanup, gateway relay. See main/sandbox/image/posthoc-init.ts.
import os
import shutil
import socket
import sys
import threading
import time

SOCKET_PATH = os.environ.get('POSTHOC_GATEWAY_SOCKET', '/run/posthoc/gateway.sock')
PORT = int(os.environ.get('POSTHOC_RELAY_PORT', '8080'))
UNAVAILABLE = (
    b'{"error": "The Posthoc gateway is not available to this task. Services and databases are reached only through it."}'
)


def pump(source, sink):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    finally:
        try:
            sink.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def serve(client):
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(SOCKET_PATH)
    except OSError:
        head = 'HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n'
        try:
            client.sendall((head % len(UNAVAILABLE)).encode() + UNAVAILABLE)
        finally:
            client.close()
            upstream.close()
        return
    back = threading.Thread(target=pump, args=(upstream, client), daemon=True)
    back.start()
    pump(client, upstream)
    back.join()
    client.close()
    upstream.close()


def relay():
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(('127.0.0.1', PORT))
    server.listen(64)
    while True:
        try:
            client, _ = server.accept()
        except OSError:
            continue
        threading.Thread(target=serve, args=(client,), daemon=True).start()


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
    # SIGKILL everything but PID 1, again and again, until nothing is left: a fork bomb keeps forking
    # while the first sweep runs.
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            os.kill(-1, 9)
        except OSError:
            pass
        if not live_others():
            shutil.rmtree('/tmp/.posthoc', ignore_errors=True)
            return 0
        time.sleep(0.05)
    return 1


if len(sys.argv) > 1 and sys.argv[1] == '--cleanup':
    sys.exit(cleanup())

threading.Thread(target=relay, daemon=True).start()

while True:
    try:
        # Orphans are re-parented to PID 1: reap each as soon as it exits.
        os.waitpid(-1, 0)
    except OSError:
        time.sleep(0.2)
`;
