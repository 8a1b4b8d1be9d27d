// Random file operations for the property tests (see fs-model.ts for what each one does).
import fc from 'fast-check';
import type { Content, Op } from './fs-model';

/** Files at least this large are "large" contents (the tests set largeFileBytes to it). */
export const LARGE = 64 * 1024;

export const name = fc.constantFrom('a', 'b.txt', 'c d', 'é', 'new\nline', '.git', 'D', 'x.py');
export const content: fc.Arbitrary<Content> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('', 'hello\n', 'hello\n', 'line 1\nline 2\n', 'ünïcode ✓\n').map((text) => ({ kind: 'text' as const, text })) },
  { weight: 3, arbitrary: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 64 }).map((bytes) => ({ kind: 'binary' as const, bytes })) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('large' as const), seed: fc.integer({ min: 1, max: 1000 }), size: fc.integer({ min: LARGE, max: LARGE * 3 }) }) },
);
export const index = fc.nat({ max: 50 });
export const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('write' as const), dir: index, name, content }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('modify' as const), file: index, content }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), entry: index }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('rename' as const), entry: index, dir: index, name }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('chmod' as const), file: index, exec: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('symlink' as const), dir: index, name, target: fc.constantFrom('a', '../outside', '/etc/hostname', 'D/x.py') }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('mkdir' as const), dir: index, name }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('rmdir' as const), dir: index }) },
);

