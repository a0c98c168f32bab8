import type { ProcessEvent } from '../../history/events.ts';
import type { ConsumerContext } from './context.ts';

/**
 * Writes one handling attempt's event at once. The open group commit is written first, so the
 * file keeps the handling order and no record precedes its commit.
 */
export function recorder(ctx: ConsumerContext): (ev: ProcessEvent) => void {
  const { group, history, phases } = ctx;
  return (ev) => {
    const t = performance.now();
    group.end();
    history.write(ev);
    phases.historyMs += performance.now() - t;
  };
}
