// The system prompt's parts as a list of sources (main/services/prompt-sources.ts): in the order the prompt
// gives them, each with nothing to say when its grant is absent, the memory left out of a run without it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { corePrompt, systemPrompt } from '../../main/agent/system-prompt';
import { MemoryFile } from '../../main/effects/memory/memory-file';
import type { DatabaseGrants } from '../../main/services/database-grants';
import { promptSources, type PromptRun } from '../../main/services/prompt-sources';
import type { Task } from '../../shared/domain';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'posthoc-prompt-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const task = (over: Partial<Task> = {}): Task =>
  ({ id: 't1', title: 't', status: 'running', workspaces: [], services: [], databases: [], mcp: [], ...over }) as unknown as Task;
const databases = { prompt: async (t: Task) => (t.databases?.length ? { names: ['shop'], schema: 'CREATE TABLE products (id INTEGER)' } : undefined) } as unknown as DatabaseGrants;
const serviceInfo = (name: string) => (name === 'github' ? { name, baseUrl: 'https://api.github.com', rules: ['no DELETE'] } : undefined);

async function prompt(sources: ReturnType<typeof promptSources>, run: PromptRun): Promise<string> {
  const parts = await Promise.all(sources.map((source) => source(run)));
  return [...corePrompt(run.task.workspaces, 5), ...parts.flat()].join('\n');
}

describe('the prompt sources', () => {
  it('say what systemPrompt says of databases and services, in its order, and nothing of what is not granted', async () => {
    const memory = new MemoryFile(dir);
    const sources = promptSources({ databases, serviceInfo, memory, mcp: async () => '\nMCP tools (servers the person granted to this task):' });
    const signal = new AbortController().signal;
    const granted = task({ services: ['github', 'gone'], databases: [{ name: 'shop' }] as unknown as Task['databases'] });
    const withGrants = await prompt(sources, { task: granted, signal, memory: false });
    expect(withGrants).toBe(systemPrompt([], 5, { names: ['shop'], schema: 'CREATE TABLE products (id INTEGER)' }, [serviceInfo('github')!]));
    expect(withGrants.indexOf('Databases:')).toBeLessThan(withGrants.indexOf('Services:'));
    expect(await prompt(sources, { task: task(), signal, memory: false })).toBe(systemPrompt([], 5));
  });

  it('read the memory only for a run that has it, and the MCP tools only for a task granted a server, last', async () => {
    const memory = new MemoryFile(dir);
    memory.write('- The reports are in /workspace/reports.');
    const asked: string[] = [];
    const sources = promptSources({
      memory,
      mcp: async (t) => {
        asked.push(t.id);
        return '\nMCP tools (servers the person granted to this task):\n- notes';
      },
    });
    const signal = new AbortController().signal;
    const without = await prompt(sources, { task: task(), signal, memory: false });
    expect(without).not.toContain('reports are in');
    expect(asked).toEqual([]);
    const full = await prompt(sources, { task: task({ mcp: ['notes'] }), signal, memory: true });
    expect(full).toContain('- The reports are in /workspace/reports.');
    expect(full.indexOf('reports are in')).toBeLessThan(full.indexOf('MCP tools'));
    expect(full.endsWith('- notes')).toBe(true);
    expect(asked).toEqual(['t1']);
  });
});
