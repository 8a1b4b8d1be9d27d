// How a setting is declared, read and written, whatever it is: one declaration (key on disk, zod schema,
// default, environment variable, where it shows) and generic code that reads it (the environment wins, then
// the saved value when it still passes the schema, then the default), checks what is written, and builds
// settings:update's input and settings:get's view from the declarations (shared/settings/index.ts), as VS
// Code's configuration registry does. Pure: main reads and writes the store through it, the renderer builds
// the fields that show from it.
import { z } from 'zod';

/** Where a setting's value came from: the environment (which wins), Posthoc's saved settings, or the default. */
export const SettingSource = z.enum(['env', 'settings', 'default']);
export type SettingSource = z.infer<typeof SettingSource>;

/** Where a setting shows in Settings, and in which words. Absent: it is set through the contract (API, CLI) only. */
export type SettingUi = {
  /** The group of fields it shows with: 'limits', the agent's limits under Settings' provider form. */
  section: 'limits';
  label: string;
  /** Its name in a message ("Max steps must be a whole number."); the label when absent. */
  noun?: string;
  hint?: string;
  /** The field's data-testid. */
  testId: string;
};

export type SettingSpec<S extends z.ZodType = z.ZodType> = {
  /** Its key in the settings table (store/task-store.ts): never changed once shipped, or data on disk is lost. */
  key: string;
  /** What a value may be: settings:update refuses anything else, and a saved value that no longer passes reads as the default. */
  schema: S;
  default: z.output<S>;
  /** An environment variable that wins over the saved value (the settings page says so). */
  env?: string;
  /**
   * How the variable's text (trimmed, never empty) reads; undefined: ignored, as if unset. Without it the
   * schema reads the text, else the number it spells, else its JSON.
   */
  fromEnv?: (text: string) => z.output<S> | undefined;
  ui?: SettingUi;
  /**
   * A map written entry by entry (prices per model, context windows per model): the saved value holds the
   * person's entries, read over the default's (the built-in ones); a write names only the entries it changes,
   * null removing the person's entry. Set by defineEntriesSetting.
   */
  entries?: { entry: z.ZodType; name: z.ZodString };
};

/** One setting, declared: the compiler keeps the default and the environment's reading to the schema's type. */
export function defineSetting<S extends z.ZodType>(spec: SettingSpec<S>): SettingSpec<S> {
  return spec;
}

export type EntriesSpec<E extends z.ZodType> = SettingSpec<z.ZodRecord<z.ZodString, E>> & { entries: { entry: E; name: z.ZodString } };

/**
 * A map setting, declared: one key on disk holding the person's entries (each checked by `entry`; one that
 * no longer passes reads as absent), read over `builtIn`; settings:update takes `{ NAME: { ENTRY: value | null } }`.
 */
export function defineEntriesSetting<E extends z.ZodType>(spec: { key: string; entry: E; builtIn?: Readonly<Record<string, z.output<E>>>; entryName?: z.ZodString; ui?: SettingUi }): EntriesSpec<E> {
  const name = spec.entryName ?? z.string().min(1);
  return { key: spec.key, schema: z.record(name, spec.entry), default: { ...(spec.builtIn ?? {}) }, ...(spec.ui ? { ui: spec.ui } : {}), entries: { entry: spec.entry, name } };
}

export type SettingSpecs = Record<string, SettingSpec>;
export type SettingValue<Spec> = Spec extends SettingSpec<infer S> ? z.output<S> : never;
export type SettingInput<Spec> = Spec extends { entries: { entry: infer E extends z.ZodType } } ? Record<string, z.input<E> | null> : Spec extends SettingSpec<infer S> ? z.input<S> : never;
export type SettingRead<T> = { value: T; source: SettingSource };
/** What settings:get says of every declared setting: its value and where it came from. */
export type SettingsView<Specs extends SettingSpecs> = { [K in keyof Specs]: SettingRead<SettingValue<Specs[K]>> };
/** What settings:update may write: any of them. */
export type SettingsPatch<Specs extends SettingSpecs> = { [K in keyof Specs]?: SettingInput<Specs[K]> };

/** The environment wins (when its text reads), then the saved value (when it passes the schema), then the default. */
export function readSetting<S extends z.ZodType>(spec: SettingSpec<S>, env: Readonly<Record<string, string | undefined>>, saved: unknown): SettingRead<z.output<S>> {
  if (spec.entries) return readEntries(spec, saved) as SettingRead<z.output<S>>;
  const text = spec.env === undefined ? '' : (env[spec.env] ?? '').trim();
  if (text !== '') {
    const value = (spec.fromEnv ?? ((t: string) => readEnvText(spec.schema, t)))(text);
    if (value !== undefined) return { value, source: 'env' };
  }
  if (saved !== undefined && saved !== null) {
    const parsed = spec.schema.safeParse(saved);
    if (parsed.success) return { value: parsed.data, source: 'settings' };
  }
  return { value: spec.default, source: 'default' };
}

/** A map setting's saved entries after a write naming some of them (null removes one); null when none is left. */
export function mergeEntries(spec: SettingSpec, saved: unknown, patch: Record<string, unknown>): Record<string, unknown> | null {
  const next = savedEntries(spec, saved);
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete next[name];
    else next[name] = value;
  }
  return Object.keys(next).length > 0 ? next : null;
}

/** The person's entries that still pass (as saved), over the built-in ones. */
function readEntries(spec: SettingSpec, saved: unknown): SettingRead<Record<string, unknown>> {
  const own = savedEntries(spec, saved);
  return { value: { ...(spec.default as Record<string, unknown>), ...own }, source: Object.keys(own).length > 0 ? 'settings' : 'default' };
}

/** The saved entries of a map setting that still pass its entry schema (an entry an older version wrote that no longer does is dropped). */
export function savedEntries(spec: SettingSpec, saved: unknown): Record<string, unknown> {
  const own: Record<string, unknown> = {};
  if (!spec.entries || saved === null || typeof saved !== 'object' || Array.isArray(saved)) return own;
  for (const [name, value] of Object.entries(saved)) {
    const parsed = spec.entries.entry.safeParse(value);
    if (spec.entries.name.safeParse(name).success && parsed.success) own[name] = parsed.data;
  }
  return own;
}

/** What settings:update takes for a setting: its schema, or for a map the entries it changes (null removes one). */
function inputSchema(spec: SettingSpec): z.ZodType {
  return spec.entries ? z.record(spec.entries.name, spec.entries.entry.nullable()) : spec.schema;
}

/** Checks a value to write: the parsed value, or why it is refused (in the schema's words, naming the setting). */
export function checkSetting<S extends z.ZodType>(name: string, spec: SettingSpec<S>, value: unknown): { ok: true; value: z.output<S> } | { ok: false; message: string } {
  const parsed = inputSchema(spec).safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data as z.output<S> };
  return { ok: false, message: `${name}: ${parsed.error.issues.map((i) => i.message).join('; ')}` };
}

/** settings:update's field for one declared setting: its schema, or for a map its entries, each nullable. */
type InputField<Spec> = Spec extends { entries: { entry: infer E extends z.ZodType; name: infer N extends z.ZodString } }
  ? z.ZodOptional<z.ZodRecord<N, z.ZodNullable<E>>>
  : Spec extends SettingSpec<infer S>
    ? z.ZodOptional<S>
    : never;

/** settings:update's fields for the declared settings: each optional, with its schema. */
export function settingsInputShape<Specs extends SettingSpecs>(specs: Specs): { [K in keyof Specs]: InputField<Specs[K]> } {
  return Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, inputSchema(spec).optional()])) as { [K in keyof Specs]: InputField<Specs[K]> };
}

/** settings:get's view of the declared settings: each one's value and source. */
export function settingsViewSchema<Specs extends SettingSpecs>(specs: Specs) {
  return z.object(
    Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, z.object({ value: spec.schema, source: SettingSource })])) as {
      [K in keyof Specs]: z.ZodObject<{ value: Specs[K]['schema']; source: typeof SettingSource }>;
    },
  );
}

function readEnvText<S extends z.ZodType>(schema: S, text: string): z.output<S> | undefined {
  const candidates: Array<() => unknown> = [() => text, () => (Number.isFinite(Number(text)) ? Number(text) : undefined), () => JSON.parse(text)];
  for (const candidate of candidates) {
    let value: unknown;
    try {
      value = candidate();
    } catch {
      continue;
    }
    if (value === undefined) continue;
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
  }
  return undefined;
}

/** Every setting at its default, as settings:get would show it with nothing saved and no variable set. */
export function defaultsView<Specs extends SettingSpecs>(specs: Specs): SettingsView<Specs> {
  return Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, { value: spec.default, source: 'default' }])) as SettingsView<Specs>;
}
