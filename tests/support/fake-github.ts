// A local stand-in for GitHub's REST API: "Authorization: Bearer TOKEN" (or "token TOKEN"), JSON bodies,
// 201 for creations, 204 for deletions, 401 {"message": "Bad credentials"} for a wrong token. It keeps
// issues and comments so tests can see an issue opened, then closed by undo.
import { createServer, type IncomingHttpHeaders } from 'node:http';

export type Issue = { number: number; owner: string; repo: string; title: string; body: string; state: 'open' | 'closed'; stateReason: string | null };
export type Comment = { id: number; issue: number; body: string; deleted: boolean };
export type GitHubCall = { method: string; path: string; headers: IncomingHttpHeaders; body: unknown };
export type FakeGitHub = {
  baseUrl: string;
  calls: GitHubCall[];
  issues: Issue[];
  comments: Comment[];
  /** Tokens it accepts; tests change it to make the old one fail (401). */
  tokens: Set<string>;
  close(): Promise<void>;
};

export async function startFakeGitHub(tokens: string[]): Promise<FakeGitHub> {
  const state: FakeGitHub = { baseUrl: '', calls: [], issues: [], comments: [], tokens: new Set(tokens), close: async () => undefined };
  let nextComment = 9001;
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://github.local');
      const method = req.method ?? 'GET';
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : null;
      state.calls.push({ method, path: url.pathname, headers: req.headers, body });
      const send = (status: number, value?: object) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-github-media-type': 'github.v3' });
        res.end(value === undefined ? '' : JSON.stringify(value));
      };
      const token = /^(?:Bearer|token) (.+)$/i.exec(String(req.headers.authorization ?? ''))?.[1];
      if (!token || !state.tokens.has(token)) return send(401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
      const seg = url.pathname.split('/').filter(Boolean);
      if (method === 'GET' && url.pathname === '/user') return send(200, { login: 'ada', id: 1 });
      if (seg[0] === 'repos' && seg.length >= 4) {
        const [, owner, repo, kind, a, b] = seg as [string, string, string, string, string?, string?];
        if (kind === 'issues' && method === 'POST' && a === undefined) {
          if (!body?.title) return send(422, { message: 'Validation Failed', errors: [{ field: 'title', code: 'missing_field' }] });
          const issue: Issue = { number: state.issues.length + 1, owner, repo, title: String(body.title), body: String(body.body ?? ''), state: 'open', stateReason: null };
          state.issues.push(issue);
          return send(201, { id: 100 + issue.number, number: issue.number, title: issue.title, state: 'open', html_url: `https://github.com/${owner}/${repo}/issues/${issue.number}` });
        }
        if (kind === 'issues' && a === 'comments' && b && method === 'DELETE') {
          const c = state.comments.find((x) => x.id === Number(b) && !x.deleted);
          if (!c) return send(404, { message: 'Not Found' });
          c.deleted = true;
          return send(204);
        }
        const issue = a ? state.issues.find((i) => i.owner === owner && i.repo === repo && i.number === Number(a)) : undefined;
        if (kind === 'issues' && issue && b === undefined && method === 'PATCH') {
          if (body?.state === 'closed' || body?.state === 'open') issue.state = body.state;
          issue.stateReason = typeof body?.state_reason === 'string' ? body.state_reason : null;
          return send(200, { number: issue.number, state: issue.state, state_reason: issue.stateReason });
        }
        if (kind === 'issues' && issue && b === undefined && method === 'GET') return send(200, { number: issue.number, state: issue.state, title: issue.title });
        if (kind === 'issues' && issue && b === 'comments' && method === 'POST') {
          const c: Comment = { id: nextComment++, issue: issue.number, body: String(body?.body ?? ''), deleted: false };
          state.comments.push(c);
          return send(201, { id: c.id, body: c.body });
        }
      }
      return send(404, { message: 'Not Found' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  state.baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  state.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return state;
}
