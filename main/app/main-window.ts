// The main window, created with the security defaults from security.ts.
import type { BrowserWindow as BrowserWindowType } from 'electron';
import { BrowserWindow, shell } from 'electron';
import { APP_ENTRY_URL, hardenContents, secureWebPreferences } from './security';

export function createMainWindow(options: { preload: string; devServerUrl?: string; devTools: boolean }): BrowserWindowType {
  const win = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: 'Posthoc',
    backgroundColor: '#f6f7f9',
    webPreferences: secureWebPreferences(options.preload, { devTools: options.devTools }),
  });
  hardenContents(win.webContents, (url) => shell.openExternal(url), options.devServerUrl);
  win.once('ready-to-show', () => win.show());
  // The packaged renderer comes from app://posthoc (app-scheme.ts), never from file://.
  void win.loadURL(options.devServerUrl ?? APP_ENTRY_URL);
  return win;
}
