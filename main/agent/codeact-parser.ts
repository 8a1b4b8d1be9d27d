// CodeAct protocol: fenced blocks tagged python, bash, sh or sql in the assistant's reply are actions, run
// in order. A reply with no such block is the final answer. Other fences (json, text, untagged) are prose.
// The fences are read by the one parser in shared/codeact/fences.ts, which the renderer uses too.
export { languageOfTag, parseReply, type CodeBlock } from '../../shared/codeact/fences';
