// folder:* — choosing a folder to grant: the desktop app's picker, or completion of a typed path.
import { completeFolder } from '../folder-completion';
import { ServiceError } from '../service-error';
import type { HandlersOf } from './handlers';

export function folderHandlers(deps: {
  /** The desktop app's native folder picker; absent in the web host and the CLI, which answer 'unavailable'. */
  pickFolder?: () => Promise<string | null>;
  /** Never offered: Posthoc's data folder. */
  dataDir: string;
}): HandlersOf<'folder:pick' | 'folder:complete'> {
  return {
    'folder:pick': async () => {
      if (!deps.pickFolder) throw new ServiceError('unavailable', 'A folder picker is only in the desktop app: type the folder’s full path instead.');
      const path = await deps.pickFolder();
      return path === null ? null : { path };
    },
    'folder:complete': ({ prefix }) => completeFolder(prefix, [deps.dataDir]),
  };
}
