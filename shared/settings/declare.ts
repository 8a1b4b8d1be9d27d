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
};

/** One setting, declared: the compiler keeps the default and the environment's reading to the schema's type. */
export function defineSetting<S extends z.ZodType>(spec: SettingSpec<S>): SettingSpec<S> {
  return spec;
}

export type SettingSpecs = Record<string, SettingSpec>;
export type SettingValue<Spec> = Spec extends SettingSpec<infer S> ? z.output<S> : never;
export type SettingInput<Spec> = Spec extends SettingSpec<infer S> ? z.input<S> : never;
export type SettingRead<T> = { value: T; source: SettingSource };
/** What settings:get says of every declared setting: its value and where it came from. */
export type SettingsView<Specs extends SettingSpecs> = { [K in keyof Specs]: SettingRead<SettingValue<Specs[K]>> };
/** What settings:update may write: any of them. */
export type SettingsPatch<Specs extends SettingSpecs> = { [K in keyof Specs]?: SettingInput<Specs[K]> };

/** The environment wins (when its text reads), then the saved value (when it passes the schema), then the default. */
export function readSetting<S extends z.ZodType>(spec: SettingSpec<S>, env: Readonly<Record<string, string | undefined>>, saved: unknown): SettingRead<z.output<S>> {
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

/** Checks a value to write: the parsed value, or why it is refused (in the schema's words, naming the setting). */
export function checkSetting<S extends z.ZodType>(name: string, spec: SettingSpec<S>, value: unknown): { ok: true; value: z.output<S> } | { ok: false; message: string } {
  const parsed = spec.schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, message: `${name}: ${parsed.error.issues.map((i) => i.message).join('; ')}` };
}

/** settings:update's fields for the declared settings: each optional, with its schema. */
export function settingsInputShape<Specs extends SettingSpecs>(specs: Specs): { [K in keyof Specs]: z.ZodOptional<Specs[K]['schema']> } {
  return Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, spec.schema.optional()])) as { [K in keyof Specs]: z.ZodOptional<Specs[K]['schema']> };
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
