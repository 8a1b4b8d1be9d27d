// The vault's status answers quickly when the keychain does not (a locked keyring with its unlock prompt
// open holds every call until the person answers it): "locked, or waiting for you", while the keychain's
// own answer is still awaited for real reads, which are never turned into "locked". The keychain helper is
// stubbed at the child boundary (KeytarProcess's `start`): the test decides when each request is answered.
// The real prompt is in tests/integration/vault-locked-prompt.test.ts.
import { describe, expect, it } from 'vitest';
import { KeytarProcess, type KeychainHelper } from '../../main/vault/keytar-process';
import { Vault } from '../../main/vault/vault';

type Request = { id: number; op: string; args: unknown[] };

/** A helper whose requests wait until the test answers them (`answer`), or are answered at once (`auto`). */
function stubHelper(auto: (r: Request) => { ok: true; value: unknown } | null = () => null) {
  const requests: Request[] = [];
  let listener: ((message: unknown) => void) | undefined;
  let kills = 0;
  let starts = 0;
  const answer = (r: Request, value: unknown) => listener?.({ id: r.id, ok: true, value });
  const start = (): KeychainHelper => {
    starts++;
    return {
      pid: 4242,
      send(request) {
        const r = request as Request;
        requests.push(r);
        const now = auto(r);
        if (now) queueMicrotask(() => answer(r, now.value));
      },
      onMessage: (l) => (listener = l),
      onExit: () => undefined,
      hold: () => undefined,
      kill: () => void kills++,
    };
  };
  return { start, requests, answer, kills: () => kills, starts: () => starts, of: (op: string) => requests.filter((r) => r.op === op) };
}

const SERVICE = 'dev.posthoc.test-status';
const pingsAnswered = (r: Request) => (r.op === 'ping' ? { ok: true as const, value: true } : null);

/** Whether a promise has settled, without waiting for it. */
function settled(p: Promise<unknown>): () => boolean {
  let done = false;
  void p.then(() => (done = true), () => (done = true));
  return () => done;
}

describe('vault status', () => {
  it('answers "locked, or waiting for you" when the keychain does not answer in the status\'s short wait, without ending the helper', async () => {
    const stub = stubHelper(pingsAnswered);
    const helper = new KeytarProcess({ start: stub.start });
    const vault = new Vault(SERVICE, async () => helper, { statusWaitMs: 20 });
    const status = await vault.status();
    expect(status).toMatchObject({ available: false, secrets: [] });
    expect(status.message).toMatch(/is locked, or waiting for you to unlock it in a prompt \(no answer within 1 s to the status check\)/);
    expect(status.message).toMatch(/Unlock it/);
    // The keychain's answer is still awaited (its own timeout); the helper was neither ended nor replaced.
    expect(stub.of('findCredentials')).toHaveLength(1);
    expect(stub.kills()).toBe(0);
    expect(stub.starts()).toBe(1);
    helper.close();
  });

  it('asks the keychain once while it has not answered: a second status answers from what is known, sending nothing', async () => {
    const stub = stubHelper(pingsAnswered);
    const helper = new KeytarProcess({ start: stub.start });
    const vault = new Vault(SERVICE, async () => helper, { statusWaitMs: 20 });
    const first = await vault.status();
    expect(await vault.status()).toEqual(first);
    expect(stub.of('findCredentials')).toHaveLength(1);
    // The person unlocks: the keychain answers the question still out; the next status asks again and is whole.
    stub.answer(stub.of('findCredentials')[0]!, [{ account: 'github-token', password: 'never shown' }]);
    await new Promise((r) => setImmediate(r));
    const third = vault.status();
    await new Promise((r) => setImmediate(r));
    expect(stub.of('findCredentials')).toHaveLength(2);
    stub.answer(stub.of('findCredentials')[1]!, [{ account: 'github-token', password: 'never shown' }]);
    expect(await third).toEqual({ available: true, message: null, secrets: [{ name: 'github-token', kind: 'secret' }] });
    helper.close();
  });

  it('a keychain that answers within the wait gives the whole status', async () => {
    const stub = stubHelper((r) => (r.op === 'ping' ? { ok: true, value: true } : r.op === 'findCredentials' ? { ok: true, value: [{ account: 'llm-api-key', password: 'x' }] } : null));
    const helper = new KeytarProcess({ start: stub.start });
    const vault = new Vault(SERVICE, async () => helper, { statusWaitMs: 600_000 });
    expect(await vault.status()).toEqual({ available: true, message: null, secrets: [{ name: 'llm-api-key', kind: 'llm-api-key' }] });
    helper.close();
  });

  it('a slow but working keychain: a real read waits for its answer and gets the value, whatever the status said meanwhile', async () => {
    const stub = stubHelper(pingsAnswered);
    const helper = new KeytarProcess({ start: stub.start });
    const vault = new Vault(SERVICE, async () => helper, { statusWaitMs: 20 });
    const read = vault.get('github-token');
    const readDone = settled(read);
    expect((await vault.status()).available).toBe(false);
    expect(readDone()).toBe(false);
    stub.answer(stub.of('getPassword')[0]!, 'the-token');
    expect(await read).toBe('the-token');
    expect(stub.kills()).toBe(0);
    helper.close();
  });

  it('the short wait starts once the helper is up: a helper slow to start is not taken for a locked keychain', async () => {
    const stub = stubHelper();
    const helper = new KeytarProcess({ start: stub.start });
    const vault = new Vault(SERVICE, async () => helper, { statusWaitMs: 1 });
    const status = vault.status();
    // The helper comes up only now, long after the status's wait would have passed had it started with the
    // helper, and then answers at once.
    await new Promise((r) => setTimeout(r, 30));
    stub.answer(stub.of('ping')[0]!, true);
    stub.answer(stub.of('findCredentials')[0]!, []);
    expect(await status).toEqual({ available: true, message: null, secrets: [] });
    helper.close();
  });

  it('waits for the keychain\'s own answer when asked to (listing the secrets)', async () => {
    const stub = stubHelper(pingsAnswered);
    const helper = new KeytarProcess({ start: stub.start });
    const vault = new Vault(SERVICE, async () => helper, { statusWaitMs: 1 });
    const full = vault.status({ waitForAnswer: true });
    const fullDone = settled(full);
    await new Promise((r) => setTimeout(r, 30));
    expect(fullDone()).toBe(false);
    stub.answer(stub.of('findCredentials')[0]!, [{ account: 'a-token', password: 'x' }]);
    expect(await full).toEqual({ available: true, message: null, secrets: [{ name: 'a-token', kind: 'secret' }] });
    helper.close();
  });
});
