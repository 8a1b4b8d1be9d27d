// The one CodeAct fence parser (shared/codeact/fences.ts): what main runs and what the renderer folds into
// action cards come from the same reading of a reply.
import { describe, expect, it } from 'vitest';
import { parseReply, readFences } from '../../shared/codeact/fences';
import { splitFences } from '../../renderer/src/model/conversation';

describe('readFences', () => {
  it('reads ```sql NAME as an action on that database, and ```sql alone as one on the only database', () => {
    const parts = readFences('Counting.\n```sql shop\nSELECT count(*) FROM orders;\n```\n```sql\nSELECT 1;\n```');
    expect(parts.map((p) => (p.kind === 'fence' ? p.action : null))).toEqual([
      null,
      { language: 'sql', source: 'SELECT count(*) FROM orders;', database: 'shop' },
      { language: 'sql', source: 'SELECT 1;', database: null },
    ]);
  });

  it('does not take an unusable name after ```sql for a database', () => {
    const [part] = readFences('```sql "my db"\nSELECT 1;\n```');
    expect(part).toMatchObject({ kind: 'fence', action: { language: 'sql', database: null } });
  });

  it('keeps python, bash and sh with their aliases, and nothing else, as actions', () => {
    const reply = ['```py', 'print(1)', '```', '```shell', 'ls', '```', '```sh', 'pwd', '```', '```json', '{}', '```'].join('\n');
    expect(parseReply(reply).actions).toEqual([
      { language: 'python', source: 'print(1)' },
      { language: 'bash', source: 'ls' },
      { language: 'sh', source: 'pwd' },
    ]);
    expect(parseReply(reply).prose).toBe('```json\n{}\n```');
  });

  it('lets a longer fence hold shorter ones (nested backticks)', () => {
    const inner = ['cat > notes.md <<EOF', '```sql', 'SELECT 1;', '```', 'EOF'].join('\n');
    const parts = readFences(`\`\`\`\`bash\n${inner}\n\`\`\`\``);
    expect(parts).toHaveLength(1);
    expect(parts[0]).toMatchObject({ kind: 'fence', tag: 'bash', close: '````', action: { language: 'bash', source: inner } });
  });

  it('runs an unterminated fence to the end and still counts it', () => {
    expect(readFences('Now:\n```sql shop\nDELETE FROM t;')).toEqual([
      { kind: 'text', lines: ['Now:'] },
      { kind: 'fence', open: '```sql shop', close: null, tag: 'sql', body: ['DELETE FROM t;'], action: { language: 'sql', source: 'DELETE FROM t;', database: 'shop' }, actionTag: true },
    ]);
  });

  it('reads ~~~ fences, closed only by ~~~', () => {
    expect(parseReply('~~~sql shop\nSELECT 1;\n```\n~~~').actions).toEqual([{ language: 'sql', source: 'SELECT 1;\n```', database: 'shop' }]);
  });

  it('marks an empty action block as an action tag with no action', () => {
    expect(readFences('```python\n\n```')).toEqual([{ kind: 'fence', open: '```python', close: '```', tag: 'python', body: [''], action: null, actionTag: true }]);
  });
});

describe('splitFences (renderer) over the same parser', () => {
  it('folds an executed ```sql block like python and bash, so it is not shown beside its card again', () => {
    const segments = splitFences('Looking at orders.\n```sql shop\nSELECT * FROM orders;\n```\nThen:\n```text\nnot run\n```');
    expect(segments).toEqual([
      { kind: 'prose', text: 'Looking at orders.' },
      { kind: 'code', tag: 'sql', text: 'SELECT * FROM orders;', isAction: true },
      // A fence that is not an action stays in the markdown, shown as code.
      { kind: 'prose', text: 'Then:\n\n```text\nnot run\n```' },
    ]);
  });

  it('finds the same actions main runs, in the same order', () => {
    const reply = ['a', '```postgres', 'SELECT 1;', '```', '```bash', 'ls', '```', '```', 'plain', '```', '```python3', 'print(2)', '```'].join('\n');
    const folded = splitFences(reply).filter((s) => s.kind === 'code' && s.isAction).map((s) => (s.kind === 'code' ? s.text : ''));
    expect(folded).toEqual(parseReply(reply).actions.map((a) => a.source));
  });
});
