// The composition root builds every service whole: each is given what it needs in its constructor, and no
// property of a service is assigned after (issue 27; docs/ARCHITECTURE.md, "The composition root").
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const source = readFileSync(join(__dirname, '../../main/services/app-services.ts'), 'utf8');

describe('the composition root (main/services/app-services.ts)', () => {
  it('assigns no property of a service after building it', () => {
    // `name.prop = …` or `name.prop.prop = …` as a statement (comparisons and arrows excluded).
    const assignments = source.split('\n').filter((line) => /^\s*[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)+\s*=[^=>]/.test(line));
    expect(assignments).toEqual([]);
  });

  it('answers the contract through the handlers of main/services/handlers, not its own', () => {
    expect(source).toContain("from './handlers'");
    expect(source).not.toMatch(/'task:start':/);
  });
});
