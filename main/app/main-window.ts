// The main window, created with the security defaults from security.ts.
import type { BrowserWindow as BrowserWindowType } from 'electron';
import { BrowserWindow, dialog, shell } from 'electron';
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
  hardenContents(win.webContents, (url) => shell.openExternal(url), options.devServerUrl, (url) => confirmLink(win, url));
  win.once('ready-to-show', () => win.show());
  // The packaged renderer comes from app://posthoc (app-scheme.ts), never from file://.
  void win.loadURL(options.devServerUrl ?? APP_ENTRY_URL);
  return win;
}

/**
 * A link in the agent's answer to a site Posthoc does not know: the whole address is shown (its host in
 * punycode, so a look-alike name shows as what it is) and nothing opens unless the person says so.
 */
export async function confirmLink(win: BrowserWindowType, raw: string): Promise<boolean> {
  const url = new URL(raw);
  const what = url.protocol === 'mailto:' ? 'Write an e-mail to this address?' : 'Open this link in your browser?';
  const { response } = await dialog.showMessageBox(win, {
    type: 'question',
    buttons: ['Cancel', url.protocol === 'mailto:' ? 'Write e-mail' : 'Open in browser'],
    defaultId: 0,
    cancelId: 0,
    noLink: true,
    title: 'Open link',
    message: what,
    detail: `${url.href}\n\nThe link is in the agent's answer. Open it only if you expected this address: anything in it (its path and query) is sent to that site.`,
  });
  return response === 1;
}
