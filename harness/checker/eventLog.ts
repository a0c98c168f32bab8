/**
 * Process events as they arrive, column by column in fixed pages: growing never copies (a
 * copy-on-grow column allocates about twice its final size, and every large allocation brings
 * a full GC nearer). When the checker seals, each column is scattered into one flat array in
 * the order the message table gives (see HistoryStore.seal) and its pages are dropped.
 */

/** Pages start small (a short history stays small) and double up to PAGE rows. */
const FIRST_PAGE = 1 << 10;
const PAGE = 1 << 16;

/** The flat columns, indexed by the new event id. */
export interface EventColumns {
  consumer: Int32Array;
  lane: Int32Array;
  offset: Float64Array;
  start: Float64Array;
  end: Float64Array;
  outcome: Uint8Array;
}

export class EventLog {
  length = 0;
  /** Per event: 0, or the phantom code (< 0) of an event that names no message. */
  private readonly msg: Int32Array[] = [];
  private consumer: Int32Array[] = [];
  private lane: Int32Array[] = [];
  private offset: Float64Array[] = [];
  private start: Float64Array[] = [];
  private end: Float64Array[] = [];
  private outcome: Uint8Array[] = [];
  private row = 0;
  private pageRows = 0;
  // The last page of each column.
  private pMsg = new Int32Array(0);
  private pConsumer = new Int32Array(0);
  private pLane = new Int32Array(0);
  private pOffset = new Float64Array(0);
  private pStart = new Float64Array(0);
  private pEnd = new Float64Array(0);
  private pOutcome = new Uint8Array(0);

  push(phantom: number, consumer: number, lane: number, offset: number, start: number, end: number, outcome: number): void {
    let r = this.row;
    if (r === this.pageRows) {
      this.addPage();
      r = 0;
    }
    this.pMsg[r] = phantom;
    this.pConsumer[r] = consumer;
    this.pLane[r] = lane;
    this.pOffset[r] = offset;
    this.pStart[r] = start;
    this.pEnd[r] = end;
    this.pOutcome[r] = outcome;
    this.row = r + 1;
    this.length++;
  }

  /** Calls fn(ev, code) for each event (arrival id) whose phantom code is set. */
  forEachPhantom(fn: (ev: number, code: number) => void): void {
    let base = 0;
    for (const page of this.msg) {
      const rows = Math.min(page.length, this.length - base);
      for (let r = 0; r < rows; r++) if (page[r] < 0) fn(base + r, page[r]);
      base += page.length;
    }
  }

  /**
   * The columns with event ev (arrival id) at to[ev]; the pages are dropped as each column is
   * done. Writing at random and reading in order: writes do not wait for their cache line.
   */
  scatter(to: Int32Array): EventColumns {
    const n = this.length;
    const consumer = scattered(this.consumer, to, new Int32Array(n));
    this.consumer = [];
    const lane = scattered(this.lane, to, new Int32Array(n));
    this.lane = [];
    const offset = scattered(this.offset, to, new Float64Array(n));
    this.offset = [];
    const start = scattered(this.start, to, new Float64Array(n));
    this.start = [];
    const end = scattered(this.end, to, new Float64Array(n));
    this.end = [];
    const outcome = scattered(this.outcome, to, new Uint8Array(n));
    this.outcome = [];
    this.msg.length = 0;
    return { consumer, lane, offset, start, end, outcome };
  }

  private addPage(): void {
    const n = (this.pageRows = Math.min(PAGE, Math.max(FIRST_PAGE, this.pageRows * 2)));
    this.msg.push((this.pMsg = new Int32Array(n)));
    this.consumer.push((this.pConsumer = new Int32Array(n)));
    this.lane.push((this.pLane = new Int32Array(n)));
    this.offset.push((this.pOffset = new Float64Array(n)));
    this.start.push((this.pStart = new Float64Array(n)));
    this.end.push((this.pEnd = new Float64Array(n)));
    this.outcome.push((this.pOutcome = new Uint8Array(n)));
    this.row = 0;
  }
}

/** into[to[ev]] = the pages' row ev, for each ev below into.length. */
function scattered<T extends Int32Array | Float64Array | Uint8Array>(pages: T[], to: Int32Array, into: T): T {
  const n = into.length;
  let base = 0;
  for (const from of pages) {
    const rows = Math.min(from.length, n - base);
    for (let r = 0; r < rows; r++) into[to[base + r]] = from[r];
    base += from.length;
  }
  return into;
}
