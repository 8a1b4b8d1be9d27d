// engine:* — the Docker engines a task may run on (issue 30): list, add, remove, check, and the sandbox image sent.
import type { EnginesService } from '../engines-service';
import type { HandlersOf } from './handlers';

export function engineHandlers(engines: EnginesService): HandlersOf<'engine:list' | 'engine:add' | 'engine:remove' | 'engine:check' | 'engine:send'> {
  return {
    'engine:list': () => engines.list(),
    'engine:add': (input) => engines.add(input),
    'engine:remove': ({ name }) => engines.remove(name),
    'engine:check': ({ name }) => engines.check(name),
    'engine:send': ({ name }) => engines.sendImage(name),
  };
}
