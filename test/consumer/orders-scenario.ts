/** A short memory-broker scenario of orders (change events) for the resequencer's CLI tests. */
export interface OrdersScenario {
  name: string;
  seed: number;
  /** The memory broker's settings, as flow YAML. */
  broker: string;
  keys: number;
  perSecond: number;
  processes: number;
  /** consumers.concurrency, as flow YAML. */
  concurrency: string;
  /** consumers.strategy, as flow YAML. */
  strategy: string;
  /** Further lines under consumers (poison), indented. */
  consumerLines?: string[];
  faults?: string[];
  expect: string;
}

export function ordersScenario(s: OrdersScenario): string {
  return [
    `name: ${s.name}`,
    `seed: ${s.seed}`,
    `broker: { kind: memory, ${s.broker} }`,
    'workload:',
    `  keys: { count: ${s.keys} }`,
    '  entity: { kind: order, events: change, cancelShare: 0.25 }',
    `  rate: { kind: fixed, perSecond: ${s.perSecond} }`,
    '  durationMs: 2s',
    '  warmupMs: 300ms',
    'consumers:',
    `  processes: ${s.processes}`,
    '  handler: { kind: constant, ms: 0 }',
    `  concurrency: ${s.concurrency}`,
    ...(s.consumerLines ?? []),
    `  strategy: ${s.strategy}`,
    ...(s.faults?.length ? ['faults:', ...s.faults.map((f) => `  - ${f}`)] : []),
    `expect: ${s.expect}`,
    'run: { drainTimeoutMs: 10s, settleMs: 1s }',
    '',
  ].join('\n');
}
