// The MCP tool calls an action made, on its card: server.tool with its arguments, what it answered (or why
// it was refused, or its error), a held call with Approve and Cancel while it waits, the call undo makes
// to take it back, and whether undo took it back.
import { useState } from 'react';
import type { Effect } from '../../../shared/domain';
import type { McpEffect } from '../../../shared/domain/mcp';
import { describeMcpCall, listMcpCalls } from '../model/mcp-view';
import './mcp.css';

function HoldButtons({ call }: { call: McpEffect }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const hold = call.hold!;
  const decide = async (approve: boolean): Promise<void> => {
    setBusy(true);
    const result = approve ? await window.posthoc.holdApprove({ holdId: hold.id }) : await window.posthoc.holdCancel({ holdId: hold.id });
    setBusy(false);
    if (!result.ok) setError(result.error.message);
  };
  return (
    <span className="call-hold" data-testid="mcp-call-hold">
      <button type="button" className="button button-small" data-testid="mcp-call-approve" disabled={busy} onClick={() => void decide(true)}>
        Approve
      </button>{' '}
      <button type="button" className="button button-small button-danger" data-testid="mcp-call-cancel" disabled={busy} onClick={() => void decide(false)}>
        Cancel
      </button>
      {error && <span className="form-error"> {error}</span>}
    </span>
  );
}

/** Shown once the action finished, or at once while one of its calls waits for the person. */
export function McpCalls({ effects, finished }: { effects: readonly Effect[]; finished: boolean }) {
  const calls = listMcpCalls(effects);
  const waiting = calls.some((c) => c.hold?.state === 'waiting');
  if (calls.length === 0 || (!finished && !waiting)) return null;
  return (
    <div className="mcp-calls" data-testid="mcp-calls">
      <div className="section-label">Tool calls</div>
      <ul>
        {calls.map((call, i) => {
          const line = describeMcpCall(call);
          return (
            <li key={i} data-testid="mcp-call" data-tone={line.outcome.tone} data-mutating={call.mutating}>
              <code className="mcp-call-name">{line.name}</code>
              <code className="mcp-call-args">{line.args}</code>{' '}
              <span className={`mcp-outcome mcp-outcome-${line.outcome.tone}`} data-testid="mcp-call-outcome">
                {line.outcome.text}
              </span>
              {line.outcome.tone === 'held' && (
                <>
                  {' '}
                  <HoldButtons call={call} />
                </>
              )}
              {line.inverse && (
                <div className="call-inverse" data-testid="mcp-call-inverse">
                  ↶ {line.inverse}
                  {line.undone && (
                    <span className={line.undone.tone === 'ok' ? 'call-ok' : 'call-error'} data-testid="mcp-call-undone">
                      {' '}
                      · {line.undone.text}
                    </span>
                  )}
                </div>
              )}
              {line.note && <div className="call-inverse muted">{line.note}</div>}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
