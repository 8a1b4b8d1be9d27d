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
];
