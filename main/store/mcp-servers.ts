// MCP servers as the person defined them (shared/domain/mcp.ts): one row per name, the definition as JSON.
// Definitions hold names of secrets only; a value never reaches this table (mcp-service refuses it first).
import { McpServerDefinition } from '../../shared/domain/mcp';
import type { AppDatabase } from './database';

type Row = { name: string; definition_json: string; created_at: string };

export class McpServerStore {
  constructor(private readonly db: AppDatabase) {}

  list(): McpServerDefinition[] {
    const rows = this.db.prepare('SELECT * FROM mcp_servers ORDER BY name').all() as Row[];
    return rows.map(toDefinition);
  }

  get(name: string): McpServerDefinition | undefined {
    const row = this.db.prepare('SELECT * FROM mcp_servers WHERE name = ?').get(name) as Row | undefined;
    return row && toDefinition(row);
  }

  /** Adds the server, or replaces the one of that name. */
  put(definition: McpServerDefinition): McpServerDefinition {
    const parsed = McpServerDefinition.parse(definition);
    this.db
      .prepare(
        `INSERT INTO mcp_servers (name, definition_json, created_at) VALUES (?, ?, ?)
         ON CONFLICT(name) DO UPDATE SET definition_json = excluded.definition_json, created_at = excluded.created_at`,
      )
      .run(parsed.name, JSON.stringify(parsed), parsed.createdAt);
    return parsed;
  }

  remove(name: string): boolean {
    return this.db.prepare('DELETE FROM mcp_servers WHERE name = ?').run(name).changes > 0;
  }
}

function toDefinition(row: Row): McpServerDefinition {
  return McpServerDefinition.parse(JSON.parse(row.definition_json));
}
