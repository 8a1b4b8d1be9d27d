// What a run's system prompt says besides its core (agent/system-prompt.ts corePrompt): one source per kind of
// grant, each asked as the run begins and answering its section's lines ([] when it has nothing to say), in the
// order the prompt gives them. The composition root makes the list; TaskService knows none of them by name.
// A new kind of grant that the model must be told about is one more source here.
import type { Task } from '../../shared/domain';
import { readFolderInstructions } from '../agent/folder-instructions';
import { memorySection } from '../agent/memory-prompt';
import { databaseSection, instructionSection, serviceSection, type PromptService } from '../agent/system-prompt';
import { readHeadBeneath } from '../effects/fs/beneath';
import type { MemoryFile } from '../effects/memory/memory-file';
import type { DatabaseGrants } from './database-grants';

/** The run a prompt is made for: its task, its stop signal, and whether it reads the memory (--no-memory: not). */
export type PromptRun = { task: Task; signal: AbortSignal; memory: boolean };

/** One part of the system prompt: its lines for this run. */
export type PromptSource = (run: PromptRun) => Promise<string[]> | string[];

export function promptSources(deps: {
  /** The granted databases' schemas. */
  databases?: DatabaseGrants;
  /** What the prompt may say of a granted service (its route and rules, never a secret). */
  serviceInfo?: (name: string) => PromptService | undefined;
  /** The agent's memory (DATA/memory.md). */
  memory?: MemoryFile;
  /** The granted MCP servers' tools, listed as the run begins (mcp-service.ts mcpPrompt). */
  mcp?: (task: Task, signal: AbortSignal) => Promise<string>;
}): PromptSource[] {
  const { databases, serviceInfo, memory, mcp } = deps;
  return [
    async ({ task }) => databaseSection(await databases?.prompt(task)),
    ({ task }) => serviceSection(serviceInfo ? task.services.flatMap((name) => serviceInfo(name) ?? []) : []),
    // AGENTS.md and the like, read beneath each granted folder with no link followed.
    async ({ task }) => instructionSection(await readFolderInstructions(task.workspaces, (g, rel, limit) => readHeadBeneath(g.hostPath, g.identity ?? null, rel, limit))),
    (run) => (memory && run.memory ? memorySection(memory.read()) : []),
    async ({ task, signal }) => {
      const text = task.mcp?.length && mcp ? await mcp(task, signal) : '';
      return text === '' ? [] : text.split('\n');
    },
  ];
}
