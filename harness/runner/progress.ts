import cliProgress from 'cli-progress';

export interface ProgressState {
  phase: string;
  elapsedS: number;
  totalS: number;
  sentRate: number;
  processedRate: number;
  backlog: number;
  /** Handler errors so far (retries, poison). */
  errors: number;
  /** Stale applies so far (duplicates and late messages, seen by the shared versioned store). */
  stale: number;
}

/**
 * A progress bar on a terminal; plain periodic lines otherwise (CI logs). Both show the
 * phase, elapsed time, send and processing rates, the backlog, and the anomalies so far: stale
 * applies (a live estimate of duplicates and reorders; the checker's count after the run is
 * the real one) and handler errors.
 */
export class Progress {
  private bar?: cliProgress.SingleBar;
  private lastLine = 0;

  constructor(
    private readonly label: string,
    private readonly tty = Boolean(process.stderr.isTTY) && !process.env.CI,
    private readonly enabled = true,
  ) {}

  update(s: ProgressState): void {
    if (!this.enabled) return;
    if (this.tty) {
      if (!this.bar) {
        this.bar = new cliProgress.SingleBar(
          {
            stream: process.stderr,
            format: `${this.label} {phase} [{bar}] {elapsed}/{total}s | sent {sent}/s | processed {processed}/s | backlog {backlog} | anomalies so far: {stale} stale, {errors} errors`,
            hideCursor: true,
            clearOnComplete: false,
          },
          cliProgress.Presets.shades_classic,
        );
        this.bar.start(Math.max(1, Math.round(s.totalS)), 0);
      }
      this.bar.setTotal(Math.max(1, Math.round(s.totalS)));
      this.bar.update(Math.min(Math.round(s.elapsedS), Math.round(s.totalS)), {
        phase: s.phase.padEnd(8), elapsed: Math.round(s.elapsedS), total: Math.round(s.totalS),
        sent: Math.round(s.sentRate), processed: Math.round(s.processedRate), backlog: s.backlog, errors: s.errors, stale: s.stale,
      });
      return;
    }
    const now = Date.now();
    if (now - this.lastLine < 5_000) return;
    this.lastLine = now;
    process.stderr.write(
      `${this.label} ${s.phase} ${Math.round(s.elapsedS)}s/${Math.round(s.totalS)}s sent ${Math.round(s.sentRate)}/s processed ${Math.round(s.processedRate)}/s backlog ${s.backlog} anomalies so far: ${s.stale} stale, ${s.errors} errors\n`,
    );
  }

  log(line: string): void {
    if (this.bar) process.stderr.write(`\n${line}\n`);
    else process.stderr.write(`${line}\n`);
  }

  stop(): void {
    this.bar?.stop();
    this.bar = undefined;
  }
}
