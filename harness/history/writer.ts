import { openSync, writeSync, closeSync, fsyncSync } from 'node:fs';
import type { HistoryEvent } from './events.ts';

/**
 * Appends events to a JSONL file with a small buffer. Flushes synchronously so that a worker
 * killed with SIGKILL loses at most the last buffer, and a clean exit loses nothing.
 */
export class HistoryWriter {
  private fd: number;
  private buf: string[] = [];
  private bytes = 0;
  private timer: NodeJS.Timeout;

  constructor(readonly path: string, private readonly flushBytes = 64 * 1024, flushMs = 200) {
    this.fd = openSync(path, 'a');
    this.timer = setInterval(() => this.flush(), flushMs);
    this.timer.unref();
  }

  write(event: HistoryEvent): void {
    this.writeLine(JSON.stringify(event));
  }

  /** Appends one event already written as JSON (one line, no newline). */
  writeLine(json: string): void {
    this.buf.push(json, '\n');
    this.bytes += json.length + 1;
    if (this.bytes >= this.flushBytes) this.flush();
  }

  flush(): void {
    if (this.buf.length === 0 || this.fd < 0) return;
    writeSync(this.fd, this.buf.join(''));
    this.buf = [];
    this.bytes = 0;
  }

  close(): void {
    if (this.fd < 0) return;
    clearInterval(this.timer);
    this.flush();
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.fd = -1;
  }
}
