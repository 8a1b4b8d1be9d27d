// Electron bootstrap, and nothing else: data folder, services, IPC, window, security handlers.
import { app, BrowserWindow, dialog, protocol, session, shell } from 'electron';
import { fileURLToPath } from 'node:url';
import { registerContract } from '../ipc/register-contract';
import { createServices, type AppServices } from '../services/app-services';
import { APP_NAME, DataDirUnusable, resolveDataDir } from '../store/data-dir';
import { registerAppScheme, serveAppScheme } from './app-scheme';
import { electronTransport } from './electron-transport';
import { useUtilityProcessForKeychain } from './keychain-helper';
import { createMainWindow } from './main-window';
import { devServerUrlOf, hardenContents, hardenSession, openSignInPage } from './security';

app.setName(APP_NAME);
if (process.env.POSTHOC_HOME) app.setPath('userData', resolveDataDir());
app.enableSandbox();
// Must happen before ready: the renderer's origin is app://posthoc, not file://.
registerAppScheme(protocol);
// keytar runs in a utility process, so a keychain crash cannot take the app down.
useUtilityProcessForKeychain();

const devServerUrl = devServerUrlOf(process.env, app.isPackaged);
let services: AppServices | undefined;

if (!app.requestSingleInstanceLock()) app.quit();

app.on('web-contents-created', (_event, contents) => hardenContents(contents, (url) => shell.openExternal(url), devServerUrl));

app.whenReady().then(() => {
  hardenSession(session.defaultSession, devServerUrl);
  serveAppScheme(protocol, fileURLToPath(new URL('../renderer', import.meta.url)));
  try {
    services = createServices({
      dataDir: app.getPath('userData'),
      // Sign-in pages of connected services open in the system browser (RFC 8252), never in the app.
      connections: { openExternal: (url) => openSignInPage(url, (u) => shell.openExternal(u)) },
      // The new-task form's "Folder…": the system's own folder picker, over the focused window.
      pickFolder: async () => {
        const window = BrowserWindow.getFocusedWindow();
        const options = { title: 'Choose a folder the agent may change', properties: ['openDirectory' as const] };
        const result = window ? await dialog.showOpenDialog(window, options) : await dialog.showOpenDialog(options);
        return result.canceled ? null : (result.filePaths[0] ?? null);
      },
    });
  } catch (error) {
    // A data folder Posthoc cannot use: say which and what to do, instead of a crash with no window.
    if (!(error instanceof DataDirUnusable)) throw error;
    dialog.showErrorBox('Posthoc cannot start', error.message);
    app.exit(2);
    return;
  }
  registerContract(electronTransport(devServerUrl), services.handlers, services.events);
  createMainWindow({
    preload: fileURLToPath(new URL('../preload/index.cjs', import.meta.url)),
    devServerUrl,
    devTools: !app.isPackaged,
  });
});

app.on('window-all-closed', () => app.quit());

let closing = false;
app.on('will-quit', (event) => {
  if (closing || !services) return;
  closing = true;
  event.preventDefault();
  void services.close().finally(() => app.quit());
});
