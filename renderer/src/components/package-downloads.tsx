// The packages an action's pip or npm fetched through the gateway: name, version, and whether the host
// cache served it; refusals say why. They went into the task's own environment, so undo has nothing to do.
import type { Effect, PackagesEffect } from '../../../shared/domain';

export function listDownloads(effects: readonly Effect[]): PackagesEffect[] {
  return effects.filter((e): e is PackagesEffect => e.channel === 'packages');
}

function sizeOf(bytes: number | undefined): string {
  if (bytes === undefined) return '';
  return bytes < 1024 * 1024 ? `${Math.max(1, Math.round(bytes / 1024))} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export function PackageDownloads({ effects }: { effects: readonly Effect[] }) {
  const downloads = listDownloads(effects);
  if (downloads.length === 0) return null;
  return (
    <section className="package-downloads" data-testid="package-downloads">
      <div className="section-label">Downloads</div>
      <ul>
        {downloads.map((d, i) => (
          <li key={i} data-testid="package-download" data-manager={d.manager} data-refused={d.refused ? 'yes' : 'no'}>
            <code>
              {d.manager} {d.name}
              {d.version ? ` ${d.version}` : ''}
            </code>{' '}
            {d.refused ? (
              <span className="call-refused">refused: {d.refused}</span>
            ) : (
              <span className="muted" title={d.file ? `${d.file}${d.sha256 ? `, sha256 ${d.sha256}` : ''}` : undefined}>
                {d.source === 'cache' ? 'from the cache on this computer' : `from ${originOf(d.source)}`}
                {d.bytes !== undefined ? `, ${sizeOf(d.bytes)}` : ''}
              </span>
            )}
          </li>
        ))}
      </ul>
      <p className="muted">Installed in this task's own environment, not in your folders: nothing for undo to take back.</p>
    </section>
  );
}

function originOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
