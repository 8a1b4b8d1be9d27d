// A second Docker daemon, as a remote engine would be: dockerd on 127.0.0.1 (a free port) speaking TLS with
// client-certificate verification (certificates made here with openssl), with its own data root, exec root and
// pidfile, no bridge and no iptables, in a mount namespace of its own (unshare --mount) where the folders the
// tests make (os.tmpdir()) are hidden under an empty tmpfs. So a container it starts cannot bind-mount the
// person's folder: the path does not exist where the daemon runs, as on another machine. Started and stopped
// (by its own pid) by the test; its state lives under /var/tmp, outside the hidden folder, and goes with it.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';

export type TlsMaterial = { ca: string; cert: string; key: string };

export type RemoteDockerd = {
  /** tcp://127.0.0.1:PORT */
  url: string;
  host: string;
  port: number;
  /** The client's certificate, key and the CA that signed the daemon's certificate (PEM text). */
  tls: TlsMaterial;
  /** Files of the same material, for the docker CLI or `posthoc engines add`. */
  files: { ca: string; cert: string; key: string };
  /** Material of another CA, which the daemon does not trust (hostile tests). */
  strangerTls: TlsMaterial;
  /** The folder hidden from the daemon (the tests' temp folders live under it). */
  hidden: string;
  docker(): Docker;
  /** dockerd's pid (its own process, the child of this test). */
  pid: number;
  stop(): Promise<void>;
};

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A CA, a server certificate for 127.0.0.1 and a client certificate, in `dir`. */
export function makeCertificates(dir: string, prefix = ''): { ca: string; caKey: string; cert: string; key: string; serverCert: string; serverKey: string } {
  const p = (name: string) => join(dir, `${prefix}${name}`);
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=posthoc test CA', '-keyout', p('ca-key.pem'), '-out', p('ca.pem')], dir);
  writeFileSync(p('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', p('server-key.pem'), '-out', p('server.csr')], dir);
  openssl(['x509', '-req', '-days', '2', '-in', p('server.csr'), '-CA', p('ca.pem'), '-CAkey', p('ca-key.pem'), '-CAcreateserial', '-extfile', p('server.ext'), '-out', p('server.pem')], dir);
  writeFileSync(p('client.ext'), 'extendedKeyUsage=clientAuth\n');
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=posthoc client', '-keyout', p('key.pem'), '-out', p('client.csr')], dir);
  openssl(['x509', '-req', '-days', '2', '-in', p('client.csr'), '-CA', p('ca.pem'), '-CAkey', p('ca-key.pem'), '-CAcreateserial', '-extfile', p('client.ext'), '-out', p('cert.pem')], dir);
  return { ca: p('ca.pem'), caKey: p('ca-key.pem'), cert: p('cert.pem'), key: p('key.pem'), serverCert: p('server.pem'), serverKey: p('server-key.pem') };
}

const read = (path: string) => readFileSync(path, 'utf8');

export async function startRemoteDockerd(): Promise<RemoteDockerd> {
  mkdirSync('/var/tmp', { recursive: true });
  const root = mkdtempSync('/var/tmp/posthoc-dockerd-');
  const certs = join(root, 'certs');
  mkdirSync(certs);
  const made = makeCertificates(certs);
  const stranger = makeCertificates(certs, 'stranger-');
  const port = await freePort();
  const hidden = tmpdir();
  const log = join(root, 'dockerd.log');
  const pidfile = join(root, 'dockerd.pid');
  const args = [
    `--host=tcp://127.0.0.1:${port}`,
    '--tlsverify',
    `--tlscacert=${made.ca}`,
    `--tlscert=${made.serverCert}`,
    `--tlskey=${made.serverKey}`,
    `--data-root=${join(root, 'data')}`,
    `--exec-root=${join(root, 'exec')}`,
    `--pidfile=${pidfile}`,
    '--bridge=none',
    '--iptables=false',
    '--ip-masq=false',
    '--ip-forward=false',
    // Its own containerd (started by dockerd inside this namespace), never the host's.
    '--containerd-namespace=posthoc-remote-test',
    '--containerd-plugins-namespace=posthoc-remote-test-plugins',
  ];
  // Inside the new mount namespace: the tests' temp folders vanish under an empty tmpfs, and the host's containerd
  // socket folder too (dockerd then runs a containerd of its own, which sees only this namespace), then dockerd
  // replaces the shell, so the pid spawned here is dockerd's.
  const script = [
    'set -e',
    `mount -t tmpfs -o size=1m,mode=0755 posthoc-hidden "$1"`,
    'if [ -d /run/containerd ]; then mount -t tmpfs -o size=1m posthoc-hidden /run/containerd; fi',
    'shift',
    'exec dockerd "$@"',
  ].join('\n');
  const logFd = (await import('node:fs')).openSync(log, 'a');
  const child: ChildProcess = spawn('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script, 'sh', hidden, ...args], {
    stdio: ['ignore', logFd, logFd],
  });
  const pid = child.pid!;
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  const tls: TlsMaterial = { ca: read(made.ca), cert: read(made.cert), key: read(made.key) };
  const docker = () => new Docker({ protocol: 'https', host: '127.0.0.1', port, ca: tls.ca, cert: tls.cert, key: tls.key });

  const stop = async (signal: NodeJS.Signals) => {
    if (!exited) {
      process.kill(pid, signal);
      await exit;
    }
  };
  const cleanup = async () => {
    await stop('SIGTERM');
    // The overlay mounts lived in the daemon's namespace, which ended with it: the folder is plain files now.
    rmSync(root, { recursive: true, force: true });
  };

  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) {
      const text = existsSync(log) ? read(log) : '';
      rmSync(root, { recursive: true, force: true });
      throw new Error(`The test dockerd ended before it answered:\n${text.slice(-3000)}`);
    }
    try {
      await docker().ping();
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        const text = read(log);
        await cleanup();
        throw new Error(`The test dockerd did not answer within 60 s (${String(error)}):\n${text.slice(-3000)}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return {
    url: `tcp://127.0.0.1:${port}`,
    host: '127.0.0.1',
    port,
    tls,
    files: { ca: made.ca, cert: made.cert, key: made.key },
    strangerTls: { ca: read(stranger.ca), cert: read(stranger.cert), key: read(stranger.key) },
    hidden,
    docker,
    pid,
    stop: cleanup,
  };
}
