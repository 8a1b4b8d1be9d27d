// Schema migrations for the app database, applied in order; PRAGMA user_version records the last one.
// Never edit a migration that has shipped: add the next one.
export const migrations: readonly string[] = [
  `
  CREATE TABLE tasks (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    status TEXT NOT NULL,
    workspaces_json TEXT NOT NULL,
    model TEXT NOT NULL,
    answer TEXT,
    error TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE TABLE messages (
    id TEXT PRIMARY KEY,
    task_id TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'observation')),
    content TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (task_id, seq)
  );
  CREATE TABLE actions (
    id TEXT PRIMARY KEY,
    task_id TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    language TEXT NOT NULL,
    source TEXT NOT NULL,
    status TEXT NOT NULL,
    output_json TEXT NOT NULL,
    reverse_json TEXT NOT NULL,
    confinement_json TEXT NOT NULL,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    undone_at TEXT,
    UNIQUE (task_id, seq)
  );
  CREATE TABLE effects (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    action_id TEXT NOT NULL REFERENCES actions(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    channel TEXT NOT NULL,
    data_json TEXT NOT NULL
  );
  CREATE TABLE checkpoints (
    commit_id TEXT NOT NULL,
    repo_path TEXT NOT NULL,
    workspace_path TEXT NOT NULL,
    action_id TEXT REFERENCES actions(id) ON DELETE SET NULL,
    phase TEXT NOT NULL CHECK (phase IN ('before', 'after', 'undo')),
    created_at TEXT NOT NULL,
    PRIMARY KEY (repo_path, commit_id, phase)
  );
  CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value_json TEXT NOT NULL
  );
  CREATE INDEX messages_by_task ON messages(task_id, seq);
  CREATE INDEX actions_by_task ON actions(task_id, seq);
  CREATE INDEX effects_by_action ON effects(action_id, seq);
  `,
  // 2: services the gateway forwards to, and which services each task may call.
  `
  CREATE TABLE services (
    name TEXT PRIMARY KEY,
    base_url TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  ALTER TABLE tasks ADD COLUMN services_json TEXT NOT NULL DEFAULT '[]';
  `,
  // The undo engine (main/store/undo-store.ts): every change of a granted folder in order, each folder's
  // last checkpoint, and the journal of restores (crash safety).
  `
  CREATE TABLE fs_changes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    folder TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('action', 'undo', 'redo', 'external')),
    action_id TEXT REFERENCES actions(id) ON DELETE CASCADE,
    task_id TEXT REFERENCES tasks(id) ON DELETE SET NULL,
    journal_id INTEGER,
    -- external changes: the action whose checkpoint found them (NULL: found before an undo or redo)
    found_by TEXT,
    from_commit TEXT NOT NULL,
    to_commit TEXT NOT NULL,
    paths_json TEXT NOT NULL,
    summary_json TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX fs_changes_by_folder ON fs_changes(folder, id);
  CREATE INDEX fs_changes_by_task ON fs_changes(task_id, id);
  CREATE TABLE fs_heads (
    folder TEXT PRIMARY KEY,
    commit_id TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE TABLE undo_journal (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id TEXT REFERENCES tasks(id) ON DELETE CASCADE,
    operation TEXT NOT NULL CHECK (operation IN ('undo', 'redo', 'rewind')),
    action_ids_json TEXT NOT NULL,
    plan_json TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'completed', 'rolled-back')),
    recovered INTEGER NOT NULL DEFAULT 0,
    note TEXT,
    started_at TEXT NOT NULL,
    finished_at TEXT
  );
  CREATE INDEX undo_journal_by_task ON undo_journal(task_id, id);
  `,
  // Databases granted to each task (grants only: passwords stay in the vault).
  `
  ALTER TABLE tasks ADD COLUMN databases_json TEXT NOT NULL DEFAULT '[]';
  `,
  // Connections (main/oauth, main/gateway): how each service is authenticated (secret names only) and the
  // person's rules for its calls; OAuth providers the person configured, and their connections — names,
  // scopes and expiry; every token stays in the OS keychain.
  `
  ALTER TABLE services ADD COLUMN auth_json TEXT NOT NULL DEFAULT '{"kind":"none"}';
  ALTER TABLE services ADD COLUMN rules_json TEXT NOT NULL DEFAULT '{}';
  ALTER TABLE services ADD COLUMN api TEXT;
  CREATE TABLE oauth_providers (
    id TEXT PRIMARY KEY,
    config_json TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE TABLE connections (
    provider TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    account TEXT,
    scopes_json TEXT NOT NULL DEFAULT '[]',
    expires_at TEXT,
    has_refresh_token INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    connected_at TEXT,
    updated_at TEXT NOT NULL
  );
  `,
  // The process that runs each task and action (pid and start time), so the next start of any Posthoc
  // command can tell a run whose process crashed or was killed from one still going in another process.
  `
  ALTER TABLE tasks ADD COLUMN owner_pid INTEGER;
  ALTER TABLE tasks ADD COLUMN owner_start TEXT;
  ALTER TABLE actions ADD COLUMN owner_pid INTEGER;
  ALTER TABLE actions ADD COLUMN owner_start TEXT;
  `,
  // Where each credential may be sent (main/store/secret-origins.ts): origins (scheme://host[:port]) per
  // secret name, or per OAuth provider ("oauth:PROVIDER"); a service elsewhere needs the person's yes.
  // The services defined before bind their credentials where they already go (base_url is a normalised
  // URL.href, so its origin is everything before the first "/" after "://"), so removing such a service
  // does not leave its secret free for the next one to take anywhere.
  `
  CREATE TABLE secret_origins (
    credential TEXT NOT NULL,
    origin TEXT NOT NULL,
    added_at TEXT NOT NULL,
    PRIMARY KEY (credential, origin)
  );
  INSERT OR IGNORE INTO secret_origins (credential, origin, added_at)
  SELECT credential, CASE WHEN slash > 0 THEN substr(base_url, 1, scheme_end + slash - 1) ELSE base_url END, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
  FROM (
    SELECT base_url, instr(base_url, '://') + 2 AS scheme_end, instr(substr(base_url, instr(base_url, '://') + 3), '/') AS slash,
      CASE json_extract(auth_json, '$.kind') WHEN 'oauth' THEN 'oauth:' || json_extract(auth_json, '$.provider') ELSE json_extract(auth_json, '$.secret') END AS credential
    FROM services
  )
  WHERE credential IS NOT NULL;
  `,
  // Derived data once: an action's reverse plan is computed from its effects on every read
  // (shared/undo/reverse-plan.ts), so reverse_json goes; the checkpoints table, written and never read, goes
  // (a checkpoint's id lives in the shadow repository's refs and in fs_changes); each action carries the id
  // of the assistant message whose code block it is — for the actions from before, the last assistant
  // message of its task created no later than it started (how the app placed them until then).
  `
  DROP TABLE checkpoints;
  ALTER TABLE actions DROP COLUMN reverse_json;
  ALTER TABLE actions ADD COLUMN message_id TEXT REFERENCES messages(id) ON DELETE SET NULL;
  UPDATE actions SET message_id = (
    SELECT m.id FROM messages m
    WHERE m.task_id = actions.task_id AND m.role = 'assistant' AND m.created_at <= actions.started_at
    ORDER BY m.seq DESC LIMIT 1
  );
  `,
  // Every undo, redo and rewind across channels, with each channel's step and result (undo-operations.ts).
  `
  CREATE TABLE undo_operations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id TEXT NOT NULL,
    operation TEXT NOT NULL,
    action_ids_json TEXT NOT NULL,
    outcome TEXT NOT NULL,
    steps_json TEXT NOT NULL,
    refs_json TEXT NOT NULL,
    message TEXT,
    at TEXT NOT NULL
  );
  CREATE INDEX undo_operations_task ON undo_operations (task_id, id);
  `,
  // The figures each action drew (main/effects/figures/, store/figure-store.ts): the PNG lives in
  // DATA/figures/ACTION/N.png; released_at is set when keep deleted it.
  `
  CREATE TABLE action_figures (
    action_id TEXT NOT NULL REFERENCES actions(id) ON DELETE CASCADE,
    n INTEGER NOT NULL,
    mime TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    released_at TEXT,
    PRIMARY KEY (action_id, n)
  );
  `,
  // Usage the provider reported (issue 15): each assistant message holds its reply's, the task its totals
  // (JSON: promptTokens, completionTokens, calls, costUsd).
  `
  ALTER TABLE messages ADD COLUMN usage_json TEXT;
  ALTER TABLE tasks ADD COLUMN usage_json TEXT;
  `,
  // The agent's plan (issue 15): the checklist its last <plan> tag held, as JSON [{text, done}].
  `
  ALTER TABLE tasks ADD COLUMN plan_json TEXT;
  `,
  // The saved model provider a task runs on (null: the default one).
  `
  ALTER TABLE tasks ADD COLUMN provider TEXT;
  `,
  // MCP servers as the person defined them (issue 16; definition: McpServerDefinition as JSON, names of
  // secrets only), and the servers each task was granted (JSON array of names; null before MCP).
  `
  CREATE TABLE mcp_servers (
    name TEXT PRIMARY KEY,
    definition_json TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  ALTER TABLE tasks ADD COLUMN mcp_json TEXT;
  `,
  // Context windows per model became one declared setting (shared/settings: contextWindows, one object on
  // 'agent.contextWindows') instead of a key per model ('agent.contextWindow.MODEL'): the old keys are
  // folded into it, whatever they held (the setting's entry schema drops a value that does not pass).
  `
  INSERT OR REPLACE INTO settings (key, value_json)
    SELECT 'agent.contextWindows', (
      SELECT json_group_object(substr(key, 21), json(value_json)) FROM settings WHERE substr(key, 1, 20) = 'agent.contextWindow.'
    )
    WHERE EXISTS (SELECT 1 FROM settings WHERE substr(key, 1, 20) = 'agent.contextWindow.');
  DELETE FROM settings WHERE substr(key, 1, 20) = 'agent.contextWindow.';
  `,
  // What the timeline's keep must read again (main/store/kept-reads.ts), written by every connection: each
  // write to an action, its effects, figures or the usage of the reply it came from marks the action; each
  // write to a folder's changes marks the folder from that id on. A keep reads the marks after the last one
  // it saw, so a write by another connection or process (the posthoc CLI beside the app) re-reads only what
  // it touched. Only the newest ~20,000 marks are kept; a keep that saw none of those reads everything again.
  `
  CREATE TABLE read_marks (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    action_id TEXT,
    folder TEXT,
    from_id INTEGER
  );
  CREATE TRIGGER read_marks_actions_i AFTER INSERT ON actions BEGIN INSERT INTO read_marks (action_id) VALUES (NEW.id); END;
  CREATE TRIGGER read_marks_actions_u AFTER UPDATE ON actions BEGIN INSERT INTO read_marks (action_id) SELECT NEW.id UNION SELECT OLD.id; END;
  CREATE TRIGGER read_marks_actions_d AFTER DELETE ON actions BEGIN INSERT INTO read_marks (action_id) VALUES (OLD.id); END;
  CREATE TRIGGER read_marks_effects_i AFTER INSERT ON effects BEGIN INSERT INTO read_marks (action_id) VALUES (NEW.action_id); END;
  CREATE TRIGGER read_marks_effects_u AFTER UPDATE ON effects BEGIN INSERT INTO read_marks (action_id) SELECT NEW.action_id UNION SELECT OLD.action_id; END;
  CREATE TRIGGER read_marks_effects_d AFTER DELETE ON effects BEGIN INSERT INTO read_marks (action_id) VALUES (OLD.action_id); END;
  CREATE TRIGGER read_marks_figures_i AFTER INSERT ON action_figures BEGIN INSERT INTO read_marks (action_id) VALUES (NEW.action_id); END;
  CREATE TRIGGER read_marks_figures_u AFTER UPDATE ON action_figures BEGIN INSERT INTO read_marks (action_id) SELECT NEW.action_id UNION SELECT OLD.action_id; END;
  CREATE TRIGGER read_marks_figures_d AFTER DELETE ON action_figures BEGIN INSERT INTO read_marks (action_id) VALUES (OLD.action_id); END;
  CREATE TRIGGER read_marks_usage_i AFTER INSERT ON messages WHEN NEW.usage_json IS NOT NULL BEGIN INSERT INTO read_marks (action_id) SELECT id FROM actions WHERE message_id = NEW.id; END;
  CREATE TRIGGER read_marks_usage_u AFTER UPDATE ON messages WHEN OLD.usage_json IS NOT NEW.usage_json OR OLD.id IS NOT NEW.id BEGIN INSERT INTO read_marks (action_id) SELECT id FROM actions WHERE message_id = OLD.id; INSERT INTO read_marks (action_id) SELECT id FROM actions WHERE message_id = NEW.id; END;
  CREATE TRIGGER read_marks_usage_d BEFORE DELETE ON messages WHEN OLD.usage_json IS NOT NULL BEGIN INSERT INTO read_marks (action_id) SELECT id FROM actions WHERE message_id = OLD.id; END;
  CREATE TRIGGER read_marks_changes_i AFTER INSERT ON fs_changes BEGIN INSERT INTO read_marks (folder, from_id) VALUES (NEW.folder, NEW.id); END;
  CREATE TRIGGER read_marks_changes_u AFTER UPDATE ON fs_changes BEGIN INSERT INTO read_marks (folder, from_id) SELECT NEW.folder, NEW.id UNION SELECT OLD.folder, OLD.id; END;
  CREATE TRIGGER read_marks_changes_d AFTER DELETE ON fs_changes BEGIN INSERT INTO read_marks (folder, from_id) VALUES (OLD.folder, OLD.id); END;
  CREATE TRIGGER read_marks_prune AFTER INSERT ON read_marks WHEN NEW.seq % 1000 = 0 BEGIN DELETE FROM read_marks WHERE seq <= NEW.seq - 20000; END;
  `,
];
