// The MCP section of the Connections page: each server as the person described it (its command line, or
// its URL and the secret it signs in with, by name), its tools with the server's hints and the person's
// rule for each (allow, hold for approval, deny — saved at once), what a stdio server keeps between tasks and a
// button that clears it, adding a server (a command line pasted as is, or a URL), importing a desktop agent's
// mcpServers JSON (each skipped entry with its reason), removing one (with what it kept).
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import type { McpServerView, McpToolRule, McpTransport } from '../../../shared/domain/mcp';
import { describeAuth, describeState, describeTransport, parseCommandLine, toolRows, withToolRule } from '../model/mcp-view';
import { formatBytes } from '../model/diff-rows';
import './mcp.css';

const RULE_WORDS: Record<McpToolRule, string> = { allow: 'allow', hold: 'hold for approval', deny: 'deny' };

/** Why the tools are not listed; a sign-in the server waits for becomes a link to its page. */
function ToolsError({ text }: { text: string | null }) {
  if (text === null) return <>Its tools are listed when a task first uses it, or with “List tools again”.</>;
  const signIn = /^(.*in your browser: )(https?:\/\/\S+)( — .*)$/s.exec(text);
  if (!signIn) return <>{text}</>;
  return (
    <>
      {signIn[1]}
      <a href={signIn[2]} target="_blank" rel="noopener noreferrer" data-testid="mcp-sign-in-link">
        open the sign-in page
      </a>
      {signIn[3]}
    </>
  );
}

function ServerTools({ server, onSaved }: { server: McpServerView; onSaved(view: McpServerView): void }) {
  const [error, setError] = useState<string | null>(null);
  const rows = toolRows(server);

  async function save(rules: Parameters<typeof window.posthoc.mcpRules>[0]['rules']): Promise<void> {
    const result = await window.posthoc.mcpRules({ name: server.name, rules });
    if (!result.ok) return setError(result.error.message);
    setError(null);
    onSaved(result.value);
  }

  return (
    <>
      {server.tools === null ? (
        <p className={server.toolsError ? 'status-problem' : 'muted'} data-testid="mcp-tools-error">
          <ToolsError text={server.toolsError} />
        </p>
      ) : rows.length === 0 ? (
        <p className="muted">It offers no tools.</p>
      ) : (
        <table className="mcp-tools" data-testid="mcp-tools">
          <tbody>
            {rows.map((t) => (
              <tr key={t.name} data-testid={`mcp-tool-${t.name}`} data-rule={t.rule}>
                <td>
                  <code>{t.name}</code>
                </td>
                <td className="mcp-tool-line">
                  {t.line || <span className="muted">no description</span>}
                  <span className="mcp-badges">
                    {t.badges.map((b) => (
                      <span key={b.kind} className={`mcp-badge mcp-badge-${b.kind}`} title={b.title} data-testid="mcp-badge">
                        {b.label}
                      </span>
                    ))}
                    {t.inverseTool && (
                      <span className="mcp-badge mcp-badge-inverse" title="Undo takes its calls back with this tool.">
                        undo: {t.inverseTool}
                      </span>
                    )}
                  </span>
                </td>
                <td>
                  <select
                    aria-label={`Rule for ${t.name}`}
                    data-testid="mcp-rule"
                    value={t.rule}
                    onChange={(e) => void save(withToolRule(server.rules, t.name, e.target.value as McpToolRule))}
                  >
                    {(['allow', 'hold', 'deny'] as const).map((r) => (
                      <option key={r} value={r}>
                        {RULE_WORDS[r]}
                      </option>
                    ))}
                  </select>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <label className="mcp-no-inverse">
        Calls that may change something and cannot be undone:{' '}
        <select data-testid="mcp-no-inverse" value={server.rules.noInverse} onChange={(e) => void save({ noInverse: e.target.value as McpToolRule })}>
          <option value="allow">run them</option>
          <option value="hold">hold for my approval</option>
          <option value="deny">refuse them</option>
        </select>
      </label>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}

function AddServerForm({ onAdded }: { onAdded(view: McpServerView): void }) {
  const [name, setName] = useState('');
  const [kind, setKind] = useState<'stdio' | 'http'>('stdio');
  const [commandLine, setCommandLine] = useState('');
  const [url, setUrl] = useState('');
  const [auth, setAuth] = useState<'none' | 'bearer' | 'oauth'>('bearer');
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent): Promise<void> {
    event.preventDefault();
    let transport: McpTransport;
    try {
      if (kind === 'stdio') transport = { kind: 'stdio', ...parseCommandLine(commandLine) };
      else transport = { kind: 'http', url: url.trim(), auth: auth === 'bearer' ? { kind: 'bearer', secret: secret.trim() } : { kind: auth } };
    } catch (e) {
      return setError((e as Error).message);
    }
    setBusy(true);
    const result = await window.posthoc.mcpAdd({ name: name.trim(), transport });
    setBusy(false);
    if (!result.ok) return setError(result.error.message);
    setError(null);
    setName('');
    setCommandLine('');
    setUrl('');
    setSecret('');
    onAdded(result.value);
  }

  return (
    <form className="mcp-add-form" data-testid="mcp-add-form" onSubmit={(e) => void submit(e)}>
      <label className="field">
        <span>
          Name (the agent writes <code>posthoc_tools.{name.trim() || 'NAME'}</code>)
        </span>
        <input value={name} onChange={(e) => setName(e.target.value)} placeholder="files" data-testid="mcp-name" autoComplete="off" />
      </label>
      <fieldset className="mcp-kind">
        <label>
          <input type="radio" name="mcp-kind" checked={kind === 'stdio'} onChange={() => setKind('stdio')} data-testid="mcp-kind-stdio" /> A command Posthoc runs confined
        </label>
        <label>
          <input type="radio" name="mcp-kind" checked={kind === 'http'} onChange={() => setKind('http')} data-testid="mcp-kind-http" /> A remote server (URL)
        </label>
      </fieldset>
      {kind === 'stdio' ? (
        <label className="field">
          Command line, pasted as is
          <input
            value={commandLine}
            onChange={(e) => setCommandLine(e.target.value)}
            placeholder="npx -y @modelcontextprotocol/server-filesystem /home/me/notes"
            data-testid="mcp-command"
            autoComplete="off"
            spellCheck={false}
          />
        </label>
      ) : (
        <div className="field-row">
          <label className="field">
            URL of its MCP endpoint
            <input value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://mcp.example.com/mcp" data-testid="mcp-url" autoComplete="off" spellCheck={false} />
          </label>
          <label className="field">
            Signs in with
            <select value={auth} onChange={(e) => setAuth(e.target.value as typeof auth)} data-testid="mcp-auth">
              <option value="bearer">a token in the keychain</option>
              <option value="oauth">signing in (OAuth)</option>
              <option value="none">nothing</option>
            </select>
          </label>
          {auth === 'bearer' && (
            <label className="field">
              Secret name
              <input value={secret} onChange={(e) => setSecret(e.target.value)} placeholder="notes-token" data-testid="mcp-secret" autoComplete="off" />
            </label>
          )}
        </div>
      )}
      <p className="muted mcp-hint">
        {kind === 'stdio'
          ? 'It runs in its own container for each task: no network, only the task’s folders, and no secret in its settings.'
          : auth === 'oauth'
            ? 'Posthoc calls it from this computer. The first time its tools are listed or used, it opens the server’s sign-in page; the tokens stay in the keychain and never reach the agent.'
            : 'Posthoc calls it from this computer; the token is added on the way out and never reaches the agent. Store it first under Secrets.'}
      </p>
      <div className="form-actions">
        <button type="submit" className="button" data-testid="mcp-add-submit" disabled={busy || !name.trim() || (kind === 'stdio' ? !commandLine.trim() : !url.trim() || (auth === 'bearer' && !secret.trim()))}>
          {busy ? 'Adding…' : 'Add server'}
        </button>
      </div>
      {error && (
        <p className="form-error" role="alert" data-testid="mcp-add-error">
          {error}
        </p>
      )}
    </form>
  );
}

function ImportForm({ onImported }: { onImported(): void }) {
  const [json, setJson] = useState('');
  const [outcome, setOutcome] = useState<{ added: string[]; skipped: Array<{ name: string; reason: string }> } | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function submit(event: FormEvent): Promise<void> {
    event.preventDefault();
    const result = await window.posthoc.mcpImport({ json });
    if (!result.ok) {
      setOutcome(null);
      return setError(result.error.message);
    }
    setError(null);
    setOutcome({ added: result.value.added.map((s) => s.name), skipped: result.value.skipped });
    if (result.value.added.length > 0) setJson('');
    onImported();
  }

  return (
    <form className="mcp-import-form" data-testid="mcp-import-form" onSubmit={(e) => void submit(e)}>
      <label className="field">
        <span>
          Paste the <code>mcpServers</code> JSON from Claude Desktop, Cursor or VS Code
        </span>
        <textarea value={json} onChange={(e) => setJson(e.target.value)} rows={6} spellCheck={false} data-testid="mcp-import-json" placeholder='{"mcpServers": {"files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"]}}}' />
      </label>
      <div className="form-actions">
        <button type="submit" className="button" data-testid="mcp-import-submit" disabled={!json.trim()}>
          Import
        </button>
      </div>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {outcome && (
        <div className="mcp-import-outcome" data-testid="mcp-import-outcome">
          <p>{outcome.added.length > 0 ? `Added: ${outcome.added.join(', ')}.` : 'Nothing was added.'}</p>
          {outcome.skipped.length > 0 && (
            <ul>
              {outcome.skipped.map((s) => (
                <li key={s.name} data-testid="mcp-import-skipped">
                  <code>{s.name}</code> skipped: {s.reason}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </form>
  );
}

export function McpServers() {
  const [servers, setServers] = useState<McpServerView[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [refreshing, setRefreshing] = useState(false);
  const [clearing, setClearing] = useState<string | null>(null);

  const load = useCallback(async (refresh = false) => {
    const result = await window.posthoc.mcpList(refresh ? { refresh: true } : {});
    if (result.ok) {
      setServers(result.value);
      setError(null);
    } else setError(result.error.message);
  }, []);

  const replace = useCallback(
    (view: McpServerView) => setServers((list) => (list.some((s) => s.name === view.name) ? list.map((s) => (s.name === view.name ? view : s)) : [...list, view])),
    [],
  );

  useEffect(() => {
    void load();
    const offs = [
      window.posthoc.on('mcp:updated', replace),
      // A server added or removed from the CLI (posthoc mcp add) shows at once.
      window.posthoc.on('store:changed', () => void load()),
    ];
    return () => offs.forEach((off) => off());
  }, [load, replace]);

  async function refresh(): Promise<void> {
    setRefreshing(true);
    await load(true);
    setRefreshing(false);
  }

  async function remove(name: string): Promise<void> {
    const result = await window.posthoc.mcpRemove({ name });
    if (!result.ok) return setError(result.error.message);
    setError(null);
    setNotice(result.value.freedBytes > 0 ? `Removed ${name} and the ${formatBytes(result.value.freedBytes)} it kept between tasks.` : `Removed ${name}.`);
    setServers((list) => list.filter((s) => s.name !== name));
  }

  async function clear(name: string): Promise<void> {
    setClearing(name);
    const result = await window.posthoc.mcpClear({ name });
    setClearing(null);
    if (!result.ok) return setError(result.error.message);
    setError(null);
    setNotice(`Cleared what ${name} kept between tasks (${formatBytes(result.value.freedBytes)}): the next task starts it empty.`);
    replace(result.value.server);
  }

  return (
    <section className="panel mcp-servers" data-testid="mcp-servers">
      <h2>MCP servers</h2>
      <p className="muted">
        Their tools are Python functions in the agent’s code (<code>from posthoc_tools import NAME</code>). Every call is on the action’s card; a
        denied tool is refused before it reaches the server.
      </p>
      {error && (
        <p className="form-error" role="alert" data-testid="mcp-error">
          {error}
        </p>
      )}
      {notice && !error && (
        <p className="muted" role="status" data-testid="mcp-notice">
          {notice}
        </p>
      )}
      {servers.length === 0 ? (
        <p className="muted">None yet: add one below, or import your desktop agent’s configuration.</p>
      ) : (
        <>
          <ul className="mcp-server-list" data-testid="mcp-server-list">
            {servers.map((s) => (
              <li key={s.name} data-testid={`mcp-server-${s.name}`}>
                <div className="mcp-server-head">
                  <code className="mcp-server-name">{s.name}</code> <code className="mcp-transport">{describeTransport(s.transport)}</code>{' '}
                  <span className="muted">
                    · {describeAuth(s.transport)}
                    {s.api ? ` · undo rules: ${s.api}` : ''}
                  </span>{' '}
                  <button
                    type="button"
                    className="button button-small"
                    data-testid="mcp-remove"
                    title={s.stateBytes ? 'Removes the server and what it keeps between tasks.' : undefined}
                    onClick={() => void remove(s.name)}
                  >
                    Remove
                  </button>
                </div>
                {describeState(s) && (
                  <p className="muted mcp-state" data-testid="mcp-state">
                    It {describeState(s)}.{' '}
                    {s.stateBytes ? (
                      <button type="button" className="button button-small" data-testid="mcp-clear" disabled={clearing === s.name} onClick={() => void clear(s.name)}>
                        {clearing === s.name ? 'Clearing…' : 'Clear its data'}
                      </button>
                    ) : null}
                  </p>
                )}
                <ServerTools server={s} onSaved={replace} />
              </li>
            ))}
          </ul>
          <button type="button" className="button button-small" data-testid="mcp-refresh" disabled={refreshing} onClick={() => void refresh()}>
            {refreshing ? 'Listing tools…' : 'List tools again'}
          </button>
        </>
      )}
      <details className="mcp-add" data-testid="mcp-add">
        <summary>Add a server</summary>
        <AddServerForm onAdded={replace} />
      </details>
      <details className="mcp-import" data-testid="mcp-import">
        <summary>Import from a desktop agent</summary>
        <ImportForm onImported={() => void load()} />
      </details>
    </section>
  );
}
