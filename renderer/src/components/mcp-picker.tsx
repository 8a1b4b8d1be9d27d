// Which MCP servers a new task's code may call (`from posthoc_tools import NAME`): the composer's "MCP server"
// control, the servers defined on the Connections page as ticks, each with how it is reached; the ticked ones
// show as chips (new-task-form.tsx). Nothing shows when none is defined.
import { useEffect, useState } from 'react';
import type { McpServerView } from '../../../shared/domain/mcp';
import { describeTransport } from '../model/mcp-view';
import { GrantPopover } from './grant-popover';

export function McpPicker({ selected, onChange }: { selected: string[]; onChange(next: string[]): void }) {
  const [servers, setServers] = useState<McpServerView[] | null>(null);

  useEffect(() => {
    let live = true;
    const load = () =>
      void window.posthoc.mcpList({}).then((result) => {
        if (live) setServers(result.ok ? result.value : []);
      });
    load();
    // What the CLI adds meanwhile is offered at once.
    const off = window.posthoc.on('store:changed', load);
    return () => {
      live = false;
      off();
    };
  }, []);

  if (servers === null || servers.length === 0) return null;
  const toggle = (name: string, on: boolean): void => onChange(on ? [...selected, name] : selected.filter((s) => s !== name));

  return (
    <GrantPopover label="MCP server" testId="new-task-add-mcp">
      <fieldset className="grant-popover-fieldset" data-testid="new-task-mcp">
        <legend>MCP servers whose tools the agent may use</legend>
        <p className="field-hint">Each call is recorded on the action’s card; tools you denied are refused.</p>
        {servers.map((server) => (
          <label key={server.name} className="checkbox-row">
            <input type="checkbox" data-testid={`new-task-mcp-${server.name}`} checked={selected.includes(server.name)} onChange={(e) => toggle(server.name, e.target.checked)} />
            <code>{server.name}</code> <span className="muted">{describeTransport(server.transport)}</span>
          </label>
        ))}
      </fieldset>
    </GrantPopover>
  );
}
