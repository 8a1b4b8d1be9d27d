// The declared settings (shared/settings) over the settings table: read with the environment winning, written
// after the schema checked every value (nothing is written when one is refused). Knows no setting by name:
// adding one is a declaration in shared/settings/index.ts.
import { checkSetting, mergeEntries, readSetting, type SettingRead, type SettingSpecs, type SettingsPatch, type SettingsView, type SettingValue } from '../../shared/settings';
import { ServiceError } from './service-error';

/** Where settings are kept: the settings table (TaskStore's getSetting / setSetting). */
export type SettingsTable = { getSetting<T>(key: string): T | undefined; setSetting(key: string, value: unknown): void };

export class DeclaredSettings<Specs extends SettingSpecs> {
  constructor(
    private readonly specs: Specs,
    private readonly table: SettingsTable,
    private readonly env: Readonly<Record<string, string | undefined>>,
  ) {}

  /** The setting's value now, and where it came from. */
  read<K extends keyof Specs & string>(name: K): SettingRead<SettingValue<Specs[K]>> {
    const spec = this.specs[name]!;
    return readSetting(spec, this.env, this.table.getSetting(spec.key)) as SettingRead<SettingValue<Specs[K]>>;
  }

  value<K extends keyof Specs & string>(name: K): SettingValue<Specs[K]> {
    return this.read(name).value;
  }

  /** Every declared setting, read. */
  view(): SettingsView<Specs> {
    return Object.fromEntries(Object.keys(this.specs).map((name) => [name, this.read(name)])) as SettingsView<Specs>;
  }

  /** Checks every declared setting the patch names (other fields are the caller's): throws invalid-input naming the first refused. */
  check(patch: SettingsPatch<Specs> & Record<string, unknown>): Array<[key: string, value: unknown]> {
    const writes: Array<[string, unknown]> = [];
    for (const [name, spec] of Object.entries(this.specs)) {
      if (patch[name] === undefined) continue;
      const checked = checkSetting(name, spec, patch[name]);
      if (!checked.ok) throw new ServiceError('invalid-input', checked.message);
      // A map names only the entries it changes: the rest of what the person saved stays.
      const value = spec.entries ? mergeEntries(spec, this.table.getSetting(spec.key), checked.value as Record<string, unknown>) : checked.value;
      writes.push([spec.key, value]);
    }
    return writes;
  }

  /** Writes the declared settings the patch names, once all of them passed (null writes the default back; for a map, removes the entry). */
  write(patch: SettingsPatch<Specs> & Record<string, unknown>): void {
    for (const [key, value] of this.check(patch)) this.table.setSetting(key, value);
  }
}
