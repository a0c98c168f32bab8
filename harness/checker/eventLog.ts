/**
 * Process events as they arrive, column by column in fixed pages: growing never copies (a
 * copy-on-grow column allocates about twice its final size, and every large allocation brings
 * a full GC nearer). When the checker seals, each column is scattered into one flat array in
 * the order the message table gives (see HistoryStore.seal) and its pages are dropped.
 */

const PAGE_SHIFT = 16;
const PAGE = 1 << PAGE_SHIFT;

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
  private row = PAGE;
  private page = -1;
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
    if (r === PAGE) {
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
    for (let p = 0; p <= this.page; p++) {
      const page = this.msg[p];
      const rows = Math.min(PAGE, this.length - (p << PAGE_SHIFT));
      for (let r = 0; r < rows; r++) if (page[r] < 0) fn((p << PAGE_SHIFT) + r, page[r]);
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
    this.msg.push((this.pMsg = new Int32Array(PAGE)));
    this.consumer.push((this.pConsumer = new Int32Array(PAGE)));
    this.lane.push((this.pLane = new Int32Array(PAGE)));
    this.offset.push((this.pOffset = new Float64Array(PAGE)));
    this.start.push((this.pStart = new Float64Array(PAGE)));
    this.end.push((this.pEnd = new Float64Array(PAGE)));
    this.outcome.push((this.pOutcome = new Uint8Array(PAGE)));
    this.page++;
    this.row = 0;
  }
}

/** into[to[ev]] = the pages' row ev, for each ev below into.length. */
function scattered<T extends Int32Array | Float64Array | Uint8Array>(pages: T[], to: Int32Array, into: T): T {
  const n = into.length;
  for (let p = 0; p < pages.length; p++) {
    const from = pages[p];
    const base = p << PAGE_SHIFT;
    const rows = Math.min(PAGE, n - base);
    for (let r = 0; r < rows; r++) into[to[base + r]] = from[r];
  }
  return into;
}
