// Rules a person asks for in words, written as the rule language's lines: "only these channels" (Slack),
// "mail only to my domain" (Gmail), "only read" and "ask me before any change" (any service). Each preset adds
// its lines to the form's text, which stays visible and editable under "Rules as text".
import { useState } from 'react';
import './connections-gallery.css';

export type RuleLines = { allow: string; bodyRules: string; hold: string };

type Preset = {
  id: string;
  label: string;
  hint: string;
  /** The word asked for first (channels, a domain), if any. */
  ask?: { label: string; placeholder: string };
  lines(value: string): Partial<RuleLines>;
};

const list = (value: string) =>
  value
    .split(/[\s,]+/)
    .map((v) => v.trim())
    .filter(Boolean)
    .join(',');

const PRESETS: Record<string, Preset[]> = {
  slack: [
    {
      id: 'channels',
      label: 'Only these channels',
      hint: 'Messages may be posted or scheduled only in the channels you name.',
      ask: { label: 'Channels', placeholder: '#team, C0123ABCD' },
      lines: (v) => ({ bodyRules: [`POST /chat.postMessage channel=${list(v)}`, `POST /chat.scheduleMessage channel=${list(v)}`].join('\n') }),
    },
  ],
  gmail: [
    {
      id: 'domain',
      label: 'Mail only to my domain',
      hint: 'Every To, Cc and Bcc address of a sent mail must be in these domains.',
      ask: { label: 'Domains', placeholder: 'example.com' },
      lines: (v) => ({ bodyRules: `POST /gmail/v1/users/me/messages/send @recipients@=${list(v)}` }),
    },
  ],
};

const ANY: Preset[] = [
  { id: 'read-only', label: 'Only read', hint: 'Only GET calls are allowed; everything else is refused.', lines: () => ({ allow: 'GET /**' }) },
  {
    id: 'ask',
    label: 'Ask me before any change',
    hint: 'Every call that may change something waits for your approval on the card.',
    lines: () => ({ hold: 'POST,PUT,PATCH,DELETE /**' }),
  },
];

export function RulePresets({ api, name, onAdd }: { api: string; name: string; onAdd(lines: Partial<RuleLines>): void }) {
  const presets = [...(PRESETS[api] ?? PRESETS[name.trim().toLowerCase()] ?? []), ...ANY];
  const [asking, setAsking] = useState<Preset | null>(null);
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);

  function choose(preset: Preset): void {
    setError(null);
    if (!preset.ask) return onAdd(preset.lines(''));
    setValue('');
    setAsking(preset);
  }

  function add(): void {
    if (!asking) return;
    if (list(value) === '') return setError(`Name at least one: ${asking.ask!.placeholder}.`);
    onAdd(asking.lines(value));
    setAsking(null);
  }

  return (
    <div className="rule-presets" data-testid="rule-presets">
      <div className="rule-preset-list" role="group" aria-label="Rules in a click">
        {presets.map((p) => (
          <button key={p.id} type="button" className="button button-small" title={p.hint} onClick={() => choose(p)} data-testid={`rule-preset-${p.id}`}>
            {p.label}
          </button>
        ))}
      </div>
      {asking && (
        <div className="field-row rule-preset-ask">
          <label className="field">
            {asking.ask!.label}
            <input
              value={value}
              autoFocus
              onChange={(e) => setValue(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter') {
                  e.preventDefault();
                  add();
                }
              }}
              placeholder={asking.ask!.placeholder}
              data-testid="rule-preset-value"
            />
            <span className="field-hint">{asking.hint}</span>
          </label>
          <div className="form-actions">
            <button type="button" className="button button-small button-primary" onClick={add} data-testid="rule-preset-add">
              Add rule
            </button>
            <button type="button" className="button button-small" onClick={() => setAsking(null)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      {error && <p className="form-error" role="alert">{error}</p>}
    </div>
  );
}
