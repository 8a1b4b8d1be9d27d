// MCP servers in the app, in Chromium against `posthoc web`'s host: a remote server (a real SDK server on
// loopback that requires a bearer token kept in the keychain) added through the Connections page's form,
// its tools listed with their hints, a rule set for one and saved; a pasted command line with an unclosed
// quote and an import whose entry carries a token are refused with their reasons; then a task granted the server
// in the new-task form, whose code calls its tools, shows each call on its card (the one the person denied, refused with the reason).
// Screenshots at 800×600 and 1600×1000.
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Vault } from '../../main/vault/vault';
import { launchChromium, openApp, SCREENSHOTS } from '../support/browser';
import { expandCard } from '../support/cards';
import type { ChatRequest } from '../support/fake-openai-server';
import { mcpTokenSecret } from '../../main/services/mcp-oauth';
import { startMcpAuthServer, type McpAuthServer } from '../support/mcp-auth-server';
import { startMcpHttpServer, type McpHttpServer } from '../support/mcp-http-server';
import { startHarness, type Harness } from '../support/services-harness';

const TOKEN = `mcp-e2e-${randomBytes(15).toString('base64url')}`;

const CODE = [
  'I will add the note, then tidy up.',
  '',
  '```python',
  'import os, requests',
  "base = os.environ['POSTHOC_GATEWAY']",
  "print('add', requests.post(base + '/mcp/notes/add_note', json={'text': 'Release 1.2 is out'}).json())",
  "r = requests.post(base + '/mcp/notes/remove_note', json={'text': 'old note'})",
  "print('remove', r.status_code, r.json())",
  "print('list', requests.post(base + '/mcp/notes/list_notes', json={}).json())",
  '```',
].join('\n');

const HELD = [
  'Adding two notes; the person approves each.',
  '',
  '```python',
  'import os, requests',
  "base = os.environ['POSTHOC_GATEWAY']",
  "print('first', requests.post(base + '/mcp/notes/add_note', json={'text': 'approved note'}).status_code)",
  "r = requests.post(base + '/mcp/notes/add_note', json={'text': 'cancelled note'})",
  "print('second', r.status_code, r.json()['error'])",
  '```',
].join('\n');

let browser: Browser;
let mcp: McpHttpServer;
let authServer: McpAuthServer;
let secure: McpHttpServer;
let vault: Vault;
let harness: Harness;

beforeAll(async () => {
  browser = await launchChromium();
  mcp = await startMcpHttpServer(TOKEN);
  authServer = await startMcpAuthServer();
  secure = await startMcpHttpServer('never-accepted', { verify: (t) => authServer.verify(t), authorizationServer: authServer.issuer });
  vault = new Vault(`dev.posthoc.test-e2e-mcp-${randomUUID()}`);
  // Each request is answered by what it is, so a check of the model made by the new-task screen uses no
  // reply of the task's: its first turn runs the code, a later one answers.
  const reply = (request: ChatRequest): string => {
    if (request.messages.some((m) => m.role === 'assistant')) return 'Done.';
    return request.messages.some((m) => m.role === 'user' && String(m.content).includes('two held notes')) ? HELD : CODE;
  };
  harness = await startHarness(Array.from({ length: 8 }, () => reply), { vault });
  await harness.services.handlers['secret:set']({ name: 'notes-token', value: TOKEN, origins: [mcp.origin] });
});
afterAll(async () => {
  await harness?.close();
  await vault?.remove('notes-token').catch(() => false);
  await vault?.remove(mcpTokenSecret.access('secure')).catch(() => false);
  await vault?.remove(mcpTokenSecret.client('secure')).catch(() => false);
  await mcp?.close();
  await secure?.close();
  await authServer?.close();
  await browser?.close();
});

describe('MCP servers in the app', () => {
  it('adds a remote server through the form, lists its tools, saves a rule, and shows a task’s tool calls on the card', async () => {
    const { page, errors, close } = await openApp(browser, harness.services, { width: 1600, height: 1000 });
    try {
      await page.getByTestId('connections-link').click();
      const section = page.getByTestId('mcp-servers');
      await section.waitFor();
      expect(await section.textContent()).toContain('None yet');

      // A pasted command line with an unclosed quote is refused before anything is sent.
      await section.getByTestId('mcp-add').locator('summary').click();
      await section.getByTestId('mcp-name').fill('files');
      await section.getByTestId('mcp-command').fill('npx -y @modelcontextprotocol/server-filesystem "/home/me/My Notes');
      await section.getByTestId('mcp-add-submit').click();
      expect(await section.getByTestId('mcp-add-error').textContent()).toBe('The command line has an unclosed double quote.');

      // The remote server: its URL and the secret it signs in with, by name.
      await section.getByTestId('mcp-name').fill('notes');
      await section.getByTestId('mcp-kind-http').check();
      await section.getByTestId('mcp-url').fill(mcp.url);
      await section.getByTestId('mcp-auth').selectOption('bearer');
      await section.getByTestId('mcp-secret').fill('notes-token');
      await section.getByTestId('mcp-add-submit').click();
      const server = section.getByTestId('mcp-server-notes');
      await server.waitFor();
      expect(await server.textContent()).toContain(`${mcp.url} · bearer token from secret notes-token`);

      await section.getByTestId('mcp-refresh').click();
      await server.getByTestId('mcp-tools').waitFor({ timeout: 30_000 });
      const badges = async (tool: string) => server.getByTestId(`mcp-tool-${tool}`).getByTestId('mcp-badge').allTextContents();
      expect(await badges('list_notes')).toEqual(['read-only']);
      expect(await badges('add_note')).toEqual(['may change']);
      expect(await badges('remove_note')).toEqual(['destructive']);
      expect(await server.getByTestId('mcp-tool-add_note').textContent()).toContain('Adds a note on the server.');

      // Deny remove_note: saved at once, and the row says so.
      await server.getByTestId('mcp-tool-remove_note').getByTestId('mcp-rule').selectOption('deny');
      await server.locator('[data-testid="mcp-tool-remove_note"][data-rule="deny"]').waitFor();
      const [saved] = await harness.services.handlers['mcp:list']({});
      expect(saved?.rules).toMatchObject({ deny: ['remove_note'], hold: [] });

      // An import whose entry carries a token in a header: skipped, with the reason.
      await section.getByTestId('mcp-import').locator('summary').click();
      await section
        .getByTestId('mcp-import-json')
        .fill(JSON.stringify({ mcpServers: { github: { url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer ghp_notARealTokenButLongEnough0123' } } } }));
      await section.getByTestId('mcp-import-submit').click();
      const skipped = section.getByTestId('mcp-import-skipped');
      await skipped.waitFor();
      expect(await skipped.textContent()).toMatch(/^github skipped: .*posthoc secret set/);

      await page.screenshot({ path: join(SCREENSHOTS, 'mcp-servers-1600.png'), fullPage: true });

      // A task granted the server in the new-task form: its code's calls are on the card.
      await page.getByTestId('new-task-button').click();
      await page.getByTestId('new-task-prompt').fill('add the release note');
      await page.getByTestId('new-task-workspace').fill(harness.workspace);
      await page.getByTestId('new-task-add-mcp').click();
      await page.getByTestId('new-task-mcp-notes').check();
      await page.getByTestId('new-task-submit').click();
      const card = page.locator(`[data-testid="action-card"][data-status="done"]`).first();
      await card.waitFor({ timeout: 90_000 });
      const body = await expandCard(card);
      const calls = body.getByTestId('mcp-call');
      await calls.first().waitFor();
      const lines = await calls.allTextContents();
      expect(lines).toHaveLength(3);
      expect(lines[0]).toMatch(/^notes\.add_note\(\{"text":"Release 1\.2 is out"\}\) → .*added note 1/);
      expect(lines[0]).toContain('no known inverse: this call cannot be undone');
      expect(lines[1]).toMatch(/^notes\.remove_note\(\{"text":"old note"\}\) refused: /);
      expect(lines[2]).toMatch(/^notes\.list_notes\(\) → .*Release 1\.2 is out.*read-only: changed nothing/);
      expect(await calls.nth(1).getAttribute('data-tone')).toBe('refused');
      // The refused call never reached the server.
      expect(mcp.calls.map((c) => c.tool)).toEqual(['add_note', 'list_notes']);
      const [task] = await harness.services.handlers['task:list']({});
      expect(task?.mcp).toEqual(['notes']);
      expect((await harness.services.tasks.wait(task!.id)).status).toBe('done');

      await card.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SCREENSHOTS, 'mcp-calls-1600.png') });
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('holds a tool the person chose to approve: Approve sends it, Cancel never does', async () => {
    const { page, errors, close } = await openApp(browser, harness.services, { width: 1600, height: 1000 });
    try {
      await page.getByTestId('connections-link').click();
      const server = page.getByTestId('mcp-server-notes');
      await server.getByTestId('mcp-tool-add_note').getByTestId('mcp-rule').selectOption('hold');
      await server.locator('[data-testid="mcp-tool-add_note"][data-rule="hold"]').waitFor();

      await page.getByTestId('new-task-button').click();
      await page.getByTestId('new-task-prompt').fill('add two held notes');
      await page.getByTestId('new-task-workspace').fill(harness.workspace);
      await page.getByTestId('new-task-add-mcp').click();
      await page.getByTestId('new-task-mcp-notes').check();
      await page.getByTestId('new-task-submit').click();

      const before = mcp.calls.length;
      const card = page.getByTestId('action-card').first();
      const approve = card.getByTestId('mcp-call-approve');
      await approve.waitFor({ timeout: 90_000 });
      expect(await card.getByTestId('mcp-call-outcome').first().textContent()).toBe('waits for your approval');
      expect(mcp.calls.length).toBe(before);
      await card.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SCREENSHOTS, 'mcp-held-1600.png') });
      await approve.click();

      // The second call waits in its turn; Cancel answers the code and nothing is sent.
      const cancel = card.getByTestId('mcp-call').nth(1).getByTestId('mcp-call-cancel');
      await cancel.waitFor({ timeout: 30_000 });
      expect(mcp.calls.slice(before)).toEqual([{ tool: 'add_note', arguments: { text: 'approved note' } }]);
      await cancel.click();

      const done = page.locator('[data-testid="action-card"][data-status="done"]').first();
      await done.waitFor({ timeout: 60_000 });
      const body = await expandCard(done);
      const lines = await body.getByTestId('mcp-call').allTextContents();
      expect(lines[0]).toMatch(/^notes\.add_note\(\{"text":"approved note"\}\) → added note \d/);
      expect(lines[1]).toMatch(/^notes\.add_note\(\{"text":"cancelled note"\}\) refused: The person did not approve notes\.add_note; it was not sent\./);
      expect(await body.getByTestId('action-output').textContent()).toMatch(/first 200\s+second 409 The person did not approve/);
      expect(mcp.calls.slice(before).map((c) => c.arguments.text)).toEqual(['approved note']);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('signs in to a server that uses OAuth from the Connections page, then lists its tools', async () => {
    const { page, errors, close } = await openApp(browser, harness.services, { width: 1600, height: 1000 });
    try {
      await page.getByTestId('connections-link').click();
      const section = page.getByTestId('mcp-servers');
      await section.getByTestId('mcp-add').locator('summary').click();
      await section.getByTestId('mcp-name').fill('secure');
      await section.getByTestId('mcp-kind-http').check();
      await section.getByTestId('mcp-url').fill(secure.url);
      await section.getByTestId('mcp-auth').selectOption('oauth');
      await section.getByTestId('mcp-add-submit').click();
      const server = section.getByTestId('mcp-server-secure');
      await server.waitFor();
      expect(await server.textContent()).toContain('signs in with OAuth');

      // Listing its tools needs a sign-in: the row links to the server's sign-in page.
      await section.getByTestId('mcp-refresh').click();
      const link = server.getByTestId('mcp-sign-in-link');
      await link.waitFor({ timeout: 30_000 });
      expect(await server.getByTestId('mcp-tools-error').textContent()).toMatch(/Sign in to the MCP server secure \(.*\) in your browser: open the sign-in page — then try again/);
      expect(new URL((await link.getAttribute('href'))!).origin).toBe(authServer.issuer);
      await page.screenshot({ path: join(SCREENSHOTS, 'mcp-oauth-sign-in-1600.png') });

      // The person signs in in the browser; the answer lands on Posthoc's loopback listener.
      const popupPromise = page.waitForEvent('popup');
      await link.click();
      const popup = await popupPromise;
      await popup.getByText('Posthoc is signed in').waitFor({ timeout: 30_000 });
      await popup.close();
      expect(await vault.get(mcpTokenSecret.access('secure'))).toBeTruthy();

      await section.getByTestId('mcp-refresh').click();
      await server.getByTestId('mcp-tools').waitFor({ timeout: 30_000 });
      expect(await server.getByTestId('mcp-tool-add_note').textContent()).toContain('Adds a note on the server.');
      expect(secure.requests.filter((r) => r.path.startsWith('/mcp') && r.authorization?.startsWith('Bearer ')).length).toBeGreaterThan(0);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('fits 800×600: the MCP section and the tool calls on a card, nothing overflowing sideways', async () => {
    const { page, errors, close } = await openApp(browser, harness.services, { width: 800, height: 600 });
    const sideways = () =>
      page.evaluate(() => ['html', '.main-pane'].map((sel) => (sel === 'html' ? document.documentElement : document.querySelector(sel))).map((el) => (el ? el.scrollWidth - el.clientWidth : 0)));
    try {
      await page.getByTestId('drawer-toggle').click();
      await page.getByTestId('connections-link').click();
      const section = page.getByTestId('mcp-servers');
      await section.getByTestId('mcp-server-notes').getByTestId('mcp-tools').waitFor({ timeout: 30_000 });
      expect(await sideways()).toEqual([0, 0]);
      await section.getByTestId('mcp-server-notes').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SCREENSHOTS, 'mcp-servers-800.png') });

      await page.getByTestId('drawer-toggle').click();
      await page.getByTestId('task-list-item').filter({ hasText: 'add the release note' }).click();
      const card = page.locator('[data-testid="action-card"][data-status="done"]').first();
      await card.waitFor({ timeout: 30_000 });
      const body = await expandCard(card);
      await body.getByTestId('mcp-calls').scrollIntoViewIfNeeded();
      expect(await sideways()).toEqual([0, 0]);
      await page.screenshot({ path: join(SCREENSHOTS, 'mcp-calls-800.png') });
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });
});
