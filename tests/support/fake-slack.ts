// A local stand-in for Slack's Web API (https://slack.com/api/METHOD): bearer token, JSON or form bodies,
// answers shaped like Slack's ({"ok": true, …} or {"ok": false, "error": …} with HTTP 200). It keeps
// the messages and reactions so tests can see a post, and its chat.delete, really happen.
// Also: /_echo answers with the request's headers and URL, as a careless service might.
import { createServer, type IncomingHttpHeaders } from 'node:http';

export type SlackMessage = { channel: string; ts: string; text: string; deleted: boolean };
export type SlackCall = {
  method: string;
  path: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** What it answered: the HTTP status and Slack's `ok`. */
  answer?: { status: number; ok: boolean };
};
export type FakeSlack = {
  baseUrl: string;
  calls: SlackCall[];
  messages: SlackMessage[];
  reactions: Array<{ channel: string; timestamp: string; name: string }>;
  /** The bearer token it accepts (set by the test). */
  token: string;
  /**
   * Methods it refuses, as Slack does (HTTP 200, {"ok": false, "error": …}): path → error, e.g.
   * `refuse['/chat.delete'] = 'cant_delete_message'`. The call is still recorded in `calls`.
   */
  refuse: Record<string, string>;
  /** While true, every call is answered HTTP 503 (the provider is down). */
  down: boolean;
  /** Messages chat.delete refuses ({"ok": false, "error": "cant_delete_message"}), as Slack does for some. */
  cannotDelete: (m: SlackMessage) => boolean;
  close(): Promise<void>;
};

const CHANNELS: Record<string, string> = { '#team': 'C0TEAM', '#random': 'C0RANDOM' };

export async function startFakeSlack(token: string): Promise<FakeSlack> {
  const state: FakeSlack = { baseUrl: '', calls: [], messages: [], reactions: [], token, refuse: {}, down: false, cannotDelete: () => false, close: async () => undefined };
  let clock = 1_700_000_000;
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://slack.local');
      const type = String(req.headers['content-type'] ?? '');
      const body: Record<string, unknown> = type.includes('json') && raw ? JSON.parse(raw) : Object.fromEntries(new URLSearchParams(raw));
      const path = url.pathname.replace(/^\/api/, '');
      const call: SlackCall = { method: req.method ?? '', path, url: req.url ?? '', headers: req.headers, body };
      state.calls.push(call);
      const send = (value: Record<string, unknown>, status = 200) => {
        call.answer = { status, ok: status === 200 && value.ok === true };
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(value));
      };
      if (state.down) return send({ ok: false, error: 'service_unavailable' }, 503);
      if (path === '/_echo') return send({ ok: true, headers: req.headers, url: req.url, body: raw });
      if (req.headers.authorization !== `Bearer ${state.token}`) return send({ ok: false, error: 'invalid_auth' });
      if (state.refuse[path]) return send({ ok: false, error: state.refuse[path] });
      const channel = CHANNELS[String(body.channel)] ?? String(body.channel ?? '');
      switch (path) {
        case '/auth.test':
          return send({ ok: true, user: 'ada', user_id: 'U0ADA', team: 'Posthoc Test' });
        case '/chat.postMessage': {
          if (!channel) return send({ ok: false, error: 'channel_not_found' });
          if (!body.text) return send({ ok: false, error: 'no_text' });
          const ts = `${clock++}.000100`;
          state.messages.push({ channel, ts, text: String(body.text), deleted: false });
          return send({ ok: true, channel, ts, message: { type: 'message', text: body.text, user: 'U0ADA', ts } });
        }
        case '/chat.delete': {
          const m = state.messages.find((x) => x.channel === channel && x.ts === body.ts && !x.deleted);
          if (!m) return send({ ok: false, error: 'message_not_found' });
          if (state.cannotDelete(m)) return send({ ok: false, error: 'cant_delete_message' });
          m.deleted = true;
          return send({ ok: true, channel, ts: m.ts });
        }
        case '/reactions.add':
          state.reactions.push({ channel, timestamp: String(body.timestamp), name: String(body.name) });
          return send({ ok: true });
        case '/reactions.remove': {
          const i = state.reactions.findIndex((r) => r.channel === channel && r.timestamp === body.timestamp && r.name === body.name);
          if (i < 0) return send({ ok: false, error: 'no_reaction' });
          state.reactions.splice(i, 1);
          return send({ ok: true });
        }
        case '/conversations.list':
          return send({ ok: true, channels: Object.entries(CHANNELS).map(([name, id]) => ({ id, name: name.slice(1) })) });
        default:
          return send({ ok: false, error: 'unknown_method' });
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  state.baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/api`;
  state.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return state;
}
