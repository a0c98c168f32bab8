import { cpus } from 'node:os';
import { hostCpuMeter } from '../runtime/host-cpu.ts';

export interface CpuShare {
  /** Mean and highest CPU use over the samples, in percent (of one core for a worker, of all CPUs for the host). */
  meanPercent: number;
  peakPercent: number;
  samples: number;
}

export interface CpuFigures {
  host: CpuShare & { cpus: number };
  workers: Record<string, CpuShare>;
}

/**
 * The harness watching its own CPU while producers send: the host's CPUs (/proc/stat) and
 * each worker's own use (its stats). A worker at 100% of a core cannot keep its timing.
 */
export class CpuWatch {
  private readonly hostMeter = hostCpuMeter();
  private readonly host = new Share();
  private readonly workers = new Map<string, Share>();

  sample(workers: { id: string; stats: { cpuPercent: number } }[]): void {
    this.host.add(this.hostMeter());
    for (const w of workers) {
      let s = this.workers.get(w.id);
      if (!s) this.workers.set(w.id, (s = new Share()));
      s.add(w.stats.cpuPercent);
    }
  }

  figures(): CpuFigures {
    return {
      host: { ...this.host.figures(), cpus: cpus().length },
      workers: Object.fromEntries([...this.workers].map(([id, s]) => [id, s.figures()])),
    };
  }
}

class Share {
  private sum = 0;
  private peak = 0;
  private n = 0;
  add(percent: number): void {
    this.sum += percent;
    this.peak = Math.max(this.peak, percent);
    this.n++;
  }
  figures(): CpuShare {
    return { meanPercent: this.n ? Math.round(this.sum / this.n) : 0, peakPercent: this.peak, samples: this.n };
  }
}
