// Electron security defaults, in one place: isolated and sandboxed renderers, no Node in pages, a CSP,
// navigation and new windows denied, external links to allow-listed origins opened, any other web page or
// e-mail address only after the person said yes to its full address, permissions denied (but
// notifications for the app's own page),
// the renderer's own origin app://posthoc, devtools and the dev server only outside packaged builds.
import type { BrowserWindowConstructorOptions, Session, WebContents } from 'electron';
import { PROVIDER_CATALOG } from '../../shared/providers/catalog';

export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/** Origins the app may open in the person's browser (documentation, provider consoles). */
export const EXTERNAL_ORIGINS: ReadonlySet<string> = new Set([
  'https://github.com',
  'https://platform.openai.com',
  'https://ollama.com',
  'https://docs.docker.com',
  // Where the gallery's providers make keys and publish prices (shared/providers/catalog.ts).
  ...PROVIDER_CATALOG.flatMap((p) => [new URL(p.keyUrl).origin, new URL(p.pricing.url).origin]),
]);

/** The packaged renderer's origin (main/app/app-scheme.ts serves it). */
export const APP_SCHEME = 'app';
export const APP_HOST = 'posthoc';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;

/**
 * The dev server electron-vite names in ELECTRON_RENDERER_URL, honoured only in a development run on the
 * loopback interface: in a packaged app that variable would let anyone who can set the environment load
 * their own page with the app's bridge.
 */
export function devServerUrlOf(env: NodeJS.ProcessEnv, isPackaged: boolean): string | undefined {
  const raw = env.ELECTRON_RENDERER_URL;
  if (isPackaged || !raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  const loopback = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
  return (url.protocol === 'http:' || url.protocol === 'https:') && loopback && url.username === '' && url.password === '' ? url.href : undefined;
}

export function secureWebPreferences(preload: string, options: { devTools: boolean }): NonNullable<BrowserWindowConstructorOptions['webPreferences']> {
  return {
    preload,
    // Off in packaged builds: devtools would let anyone at the keyboard call the bridge by hand.
    devTools: options.devTools,
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

/** Longest link the app offers to open: a longer one is no link a person meant to follow. */
export const MAX_LINK_CHARS = 4096;

/**
 * Links from the page (an answer's markdown) the person may open after seeing the full address and saying
 * yes: a web page (http or https, a host name, no user name or password in it) or an e-mail address.
 * Never another scheme (file:, javascript:, smb:, a custom app's), which shell.openExternal would hand to
 * whatever program claims it.
 */
export function isAskableExternalUrl(raw: string): boolean {
  if (raw.length > MAX_LINK_CHARS) return false;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.protocol === 'mailto:') return url.pathname.includes('@');
  return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '' && url.username === '' && url.password === '';
}

/** Asks the person whether to open a link (its full address shown); true: open it. */
export type ConfirmLink = (url: string) => Promise<boolean>;

/**
 * Sign-in pages of OAuth providers, opened in the person's browser: https without credentials in the URL,
 * or plain http on the loopback interface (local test servers). main/oauth has already checked that the
 * page is on the provider's own origin; this keeps any other scheme (file:, javascript:, smb:) from
 * reaching shell.openExternal.
 */
export function isAllowedSignInUrl(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.username !== '' || url.password !== '') return false;
  if (url.protocol === 'https:') return url.hostname !== '';
  return url.protocol === 'http:' && (url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]');
}

/** Opens an OAuth sign-in page in the browser if isAllowedSignInUrl allows it; false (the link is shown instead) if not. */
export async function openSignInPage(url: string, openExternal: (url: string) => Promise<void>): Promise<boolean> {
  if (!isAllowedSignInUrl(url)) return false;
  await openExternal(url);
  return true;
}

/** The app's own pages: the packaged renderer (app://posthoc) or the dev server electron-vite starts. */
export function isAppUrl(raw: string, devServerUrl: string | undefined): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  // Not any file: URL: a file page shares its origin with every file on the disk.
  if (url.protocol === `${APP_SCHEME}:`) return url.host === APP_HOST && url.username === '' && url.password === '';
  if (devServerUrl) {
    try {
      return url.origin === new URL(devServerUrl).origin;
    } catch {
      return false;
    }
  }
  return false;
}

export function hardenSession(session: Session, devServerUrl?: string): void {
  // One permission, for the app's own page only: desktop notifications (a task waits for the person).
  session.setPermissionRequestHandler((_contents, permission, callback, details) =>
    callback(permission === 'notifications' && isAppUrl(details?.requestingUrl ?? '', devServerUrl)),
  );
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin) => permission === 'notifications' && isAppUrl(requestingOrigin, devServerUrl));
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
  confirm?: ConfirmLink,
): void {
  // The renderer is a single page: it never navigates. Links to allow-listed sites open in the browser;
  // any other page or address only once the person has seen it whole and said yes.
  const follow = (url: string) => {
    if (isAllowedExternalUrl(url)) void openExternal(url);
    else if (confirm && isAskableExternalUrl(url)) {
      void confirm(url).then(
        (yes) => (yes ? openExternal(url) : undefined),
        () => undefined,
      );
    }
  };
  contents.on('will-navigate', (event, url) => {
    event.preventDefault();
    if (!isAppUrl(url, devServerUrl)) follow(url);
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    follow(url);
    return { action: 'deny' };
  });
}
