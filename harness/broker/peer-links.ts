/** Whether a deployment's nodes can be cut off from their peers (the isolate fault's capability). */
import type { RuntimeKind } from './contract.ts';

/** Cutting nodes off from their peers needs the proxied peer links of a local cluster. */
export function isolateCapability(s: { nodes: number; peerLinks: 'direct' | 'proxied' }, runtime: RuntimeKind): true | string {
  if (runtime !== 'local') return 'only a local cluster has peer links convoy can cut (broker.peerLinks: proxied)';
  if (s.nodes < 2) return 'a single node has no peers (set broker.nodes: 3)';
  if (s.peerLinks !== 'proxied') return 'the nodes reach each other directly; set broker.peerLinks: proxied';
  return true;
}
