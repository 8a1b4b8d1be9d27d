// What a task was granted, in its header: each folder, each database (by its name, engine and where it is),
// the services and MCP servers it may call; "Nothing granted" only when there is none of them.
import type { Task } from '../../../shared/domain';
import { engineLabel } from '../../../shared/domain/database-engines';

export function TaskResources({ task }: { task: Task }) {
  const databases = task.databases ?? [];
  const services = task.services;
  const tools = task.mcp ?? [];
  const nothing = task.workspaces.length + databases.length + services.length + tools.length === 0;
  return (
    <>
      {nothing && <span className="muted">Nothing granted: no folder, database or service</span>}
      {task.workspaces.map((grant) => (
        <span className="workspace-chip" key={grant.mountPath} title={`${grant.hostPath} → ${grant.mountPath}`}>
          {grant.hostPath}
          {grant.readOnly && <span className="muted"> (read-only)</span>}
        </span>
      ))}
      {databases.map((db) => (
        <span className="workspace-chip database-chip" key={`db:${db.name}`} data-testid="task-database" title={`${engineLabel(db.engine)} database: ${db.location}`}>
          <span className="muted">database </span>
          {db.name}
          <span className="muted">
            {' '}
            ({engineLabel(db.engine)}
            {db.readOnly ? ', read-only' : ''})
          </span>
        </span>
      ))}
      {services.length > 0 && (
        <span className="workspace-chip" data-testid="task-services" title="Services the sandbox may call through the gateway">
          <span className="muted">{services.length === 1 ? 'service ' : 'services '}</span>
          {services.join(', ')}
        </span>
      )}
      {tools.length > 0 && (
        <span className="workspace-chip" data-testid="task-mcp" title="MCP servers whose tools the agent may call">
          <span className="muted">tools </span>
          {tools.join(', ')}
        </span>
      )}
    </>
  );
}
