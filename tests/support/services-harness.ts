// Builds the real services (SQLite store, Docker sandbox, git checkpoints) over a temp data folder, with
// the model provider replaced by a local scripted OpenAI-compatible server.
import type { Vault } from '../../main/vault/vault';
import { createServices, type AppServices } from '../../main/services/app-services';
import type { ConnectionsOptions } from '../../main/services/connections-service';
import { startFakeOpenAi, type FakeOpenAi, type Reply } from './fake-openai-server';
import { tempDirs } from './temp-dir';

export type Harness = { services: AppServices; llm: FakeOpenAi; dataDir: string; workspace: string; close(): Promise<void> };

export async function startHarness(replies: Reply[], options: { vault?: Vault; stream?: boolean; connections?: ConnectionsOptions } = {}): Promise<Harness> {
  const dirs = tempDirs();
  const dataDir = dirs.make('posthoc-data-');
  const workspace = dirs.workspace();
  const llm = await startFakeOpenAi(replies);
  const services = createServices({
    dataDir,
    vault: options.vault,
    connections: options.connections,
    env: { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'scripted', POSTHOC_STREAM: options.stream === false ? '0' : '1' },
  });
  return {
    services,
    llm,
    dataDir,
    workspace,
    async close() {
      await services.close();
      await llm.close();
      dirs.cleanup();
    },
  };
}
