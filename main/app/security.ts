// Electron security defaults, in one place: isolated and sandboxed renderers, no Node in pages, a CSP,
// navigation and new windows denied, external links only to allow-listed origins, permissions denied.
import type { BrowserWindowConstructorOptions, Session, WebContents } from 'electron';

export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/** Origins the app may open in the person's browser (documentation, provider consoles). */
export const EXTERNAL_ORIGINS: ReadonlySet<string> = new Set([
  'https://github.com',
  'https://platform.openai.com',
  'https://ollama.com',
  'https://docs.docker.com',
]);

export function secureWebPreferences(preload: string): NonNullable<BrowserWindowConstructorOptions['webPreferences']> {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    spellcheck: false,
  };
}

export function isAllowedExternalUrl(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  return url.protocol === 'https:' && url.username === '' && url.password === '' && EXTERNAL_ORIGINS.has(url.origin);
}

/** The app's own pages: the packaged renderer (file://) or the dev server electron-vite starts. */
export function isAppUrl(raw: string, devServerUrl: string | undefined): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.protocol === 'file:') return true;
  if (devServerUrl) {
    try {
      return url.origin === new URL(devServerUrl).origin;
    } catch {
      return false;
    }
  }
  return false;
}

export function hardenSession(session: Session): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({
      responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] },
    });
  });
}

export function hardenContents(
  contents: WebContents,
  openExternal: (url: string) => Promise<void>,
  devServerUrl: string | undefined,
): void {
  // The renderer is a single page: it never navigates. Links to allow-listed sites open in the browser.
  contents.on('will-navigate', (event, url) => {
    event.preventDefault();
    if (!isAppUrl(url, devServerUrl) && isAllowedExternalUrl(url)) void openExternal(url);
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (isAllowedExternalUrl(url)) void openExternal(url);
    return { action: 'deny' };
  });
}
