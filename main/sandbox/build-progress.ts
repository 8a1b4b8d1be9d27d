// An image build's progress: the phase, packages done of total where the tools say, the time since the start.
// Read from the tools' own output lines (debootstrap, apt-get, docker build).
import type { SandboxBuildProgress } from '../../shared/contract';

export type BuildProgress = SandboxBuildProgress;
export type BuildStep = Omit<BuildProgress, 'elapsedMs'>;

/**
 * Reads the output of a build — debootstrap's "I: Retrieving/Extracting/Unpacking/Configuring PKG" lines,
 * apt-get's "N newly installed", "Get:N", "Unpacking PKG", "Setting up PKG", docker build's "Step N/M" —
 * and says which phase the build is in and how many packages of how many it has done.
 */
export class BuildProgressParser {
  private retrieved = 0;
  private extracted = 0;
  private unpacked = 0;
  private configured = 0;
  /** Packages apt-get said it would install; debootstrap's total is what it retrieved. */
  private aptTotal: number | undefined;
  private aptMode = false;

  /** The step this line shows, or null when it moves nothing (the caller may still show the line). */
  feed(raw: string): BuildStep | null {
    const line = raw.trim();
    let m: RegExpMatchArray | null;
    // docker build's steps are not packages: the phase and the step; apt-get inside a step counts packages.
    if (/^Step \d+\/\d+ : /.test(line)) return { phase: 'installing', line };
    if ((m = line.match(/^I: (.*)$/))) return this.debootstrap(m[1]!, line);
    if ((m = line.match(/(\d+) upgraded, (\d+) newly installed/))) {
      this.aptMode = true;
      this.aptTotal = Number(m[2]);
      this.retrieved = this.unpacked = this.configured = 0;
      return { phase: 'downloading', done: 0, total: this.aptTotal, line };
    }
    if (!this.aptMode) return null;
    const total = this.aptTotal;
    if (/^Get:\d+ /.test(line)) return { phase: 'downloading', done: ++this.retrieved, total, line };
    if (/^Unpacking \S+ \(/.test(line)) return { phase: 'unpacking', done: ++this.unpacked, total, line };
    if (/^Setting up \S+ \(/.test(line)) return { phase: 'configuring', done: ++this.configured, total, line };
    return null;
  }

  private debootstrap(message: string, line: string): BuildStep | null {
    if (/^(Retrieving (InRelease|Release|Packages)\b|Checking|Valid Release|Resolving|Target)/.test(message)) {
      return { phase: 'resolving', line };
    }
    if (/^Retrieving \S+ /.test(message)) return { phase: 'downloading', done: ++this.retrieved, line };
    if (/^Validating /.test(message)) return null;
    if (/^(Installing core|Unpacking required|Configuring required|Unpacking the base|Configuring the base)/.test(message)) {
      return { phase: /^Configuring/.test(message) ? 'configuring' : message.startsWith('Installing') ? 'installing' : 'unpacking', line };
    }
    if (/^Extracting \S+\.\.\.$/.test(message)) return { phase: 'installing', done: ++this.extracted, line };
    const total = this.retrieved || undefined;
    if (/^Unpacking \S+\.\.\.$/.test(message)) return { phase: 'unpacking', done: ++this.unpacked, total, line };
    if (/^Configuring \S+\.\.\.$/.test(message)) return { phase: 'configuring', done: ++this.configured, total, line };
    if (/^Base system installed/.test(message)) return { phase: 'finishing', line };
    return null;
  }
}

/** One line for a terminal: "[0:42] unpacking 120/310 packages — I: Unpacking libc6...". */
export function formatBuildProgress(p: BuildProgress): string {
  const seconds = Math.floor(p.elapsedMs / 1000);
  const clock = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
  const count = p.done === undefined ? '' : p.total === undefined ? ` ${p.done} packages` : ` ${p.done}/${p.total} packages`;
  return `[${clock}] ${p.phase}${count}${p.line ? ` — ${p.line}` : ''}`;
}

/** Times a build and turns its output into progress for one listener. */
export class BuildReporter {
  private readonly started = Date.now();
  private readonly parser = new BuildProgressParser();
  private last: BuildStep = { phase: 'starting' };

  constructor(private readonly listener: (progress: BuildProgress) => void) {}

  step(step: BuildStep): void {
    this.last = step;
    this.listener({ ...step, elapsedMs: Date.now() - this.started });
  }

  /** A new phase of the build's own (not a tool's output line). */
  phase(phase: BuildProgress['phase'], line?: string): void {
    this.step({ phase, ...(line === undefined ? {} : { line }) });
  }

  /** A line of a tool's output: a step when the parser reads one, else the line under the last phase. */
  line(raw: string): void {
    // Without the terminal colours docker build passes on.
    const line = raw.replace(/\x1b\[[0-9;]*m/g, '');
    const parsed = this.parser.feed(line);
    if (parsed) this.step(parsed);
    else if (line.trim()) this.step({ ...this.last, line: line.trim() });
  }
}
