// The parts of autocannon 9's programmatic API the load driver uses (it ships no types).
declare module 'autocannon' {
  export interface Request {
    method?: string;
    path?: string;
    body?: string;
    headers?: Record<string, string>;
    setupRequest?(req: Request, context: Record<string, unknown>): Request | undefined;
  }
  export interface Options {
    url: string | string[];
    connections?: number;
    amount?: number;
    overallRate?: number;
    timeout?: number;
    requests?: Request[];
  }
  export interface Histo {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p99: number;
    p99_9?: number;
    [p: string]: number | undefined;
  }
  export interface Result {
    latency: Histo;
    requests: Histo & { total: number; sent: number };
    throughput: Histo;
    errors: number;
    timeouts: number;
    non2xx: number;
    duration: number;
    start: Date;
    finish: Date;
    connections: number;
    '1xx': number;
    '2xx': number;
    '3xx': number;
    '4xx': number;
    '5xx': number;
  }
  export interface Instance {
    on(event: 'response', f: (client: unknown, statusCode: number, bytes: number, ms: number) => void): void;
    on(event: 'done', f: (r: Result) => void): void;
    stop(): void;
  }
  function autocannon(opts: Options, cb: (err: Error | null, result: Result) => void): Instance;
  export default autocannon;
}
