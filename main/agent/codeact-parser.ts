// CodeAct protocol: the actions of a reply, in order, in every format shared/codeact/reply.ts reads (fenced
// blocks tagged python, bash, sh or sql; <execute> tags; an untagged fence the reply says to run). A reply
// with no action is the final answer, unless the loop finds it needs a correction (agent-loop.ts).
// The replies are read by the one parser in shared/codeact/, which the renderer uses too.
import { readReply } from '../../shared/codeact/reply';
import type { CodeBlock } from '../../shared/codeact/fences';

export { languageOfTag, type CodeBlock } from '../../shared/codeact/fences';
export { readReply } from '../../shared/codeact/reply';

/** The actions of a reply, in order, and its prose (without reasoning, plan and action code). */
export function parseReply(reply: string): { actions: CodeBlock[]; prose: string } {
  const { actions, prose } = readReply(reply);
  return { actions, prose };
}
