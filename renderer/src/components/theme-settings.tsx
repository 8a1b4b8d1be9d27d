// Settings › Appearance: follow the system's light or dark theme, or keep one. Kept in this window's storage.
import { setThemeChoice, useThemeChoice, type ThemeChoice } from '../state/theme';

const CHOICES: Array<{ value: ThemeChoice; label: string }> = [
  { value: 'system', label: 'Same as the system' },
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
];

export function ThemeSettings() {
  const choice = useThemeChoice();
  return (
    <fieldset className="field theme-choice" data-testid="theme-choice">
      <legend>Theme</legend>
      <div className="theme-options">
        {CHOICES.map((c) => (
          <label key={c.value} className="checkbox-row">
            <input type="radio" name="theme" value={c.value} checked={choice === c.value} data-testid={`theme-${c.value}`} onChange={() => setThemeChoice(c.value)} />
            {c.label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
