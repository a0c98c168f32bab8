/**
 * Which node leads the KRaft quorum (the active controller), from the files the nodes keep:
 * every voter writes `__cluster_metadata-0/quorum-state` ({"leaderId", "leaderEpoch", ...})
 * when it learns of a new epoch. The entry with the highest epoch names the current leader
 * (a node cut off from the quorum keeps an older epoch, or one with no leader, -1).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface QuorumState {
  leaderId: number;
  leaderEpoch: number;
}

export function readQuorumState(dataDir: string): QuorumState | undefined {
  try {
    const s = JSON.parse(readFileSync(join(dataDir, '__cluster_metadata-0', 'quorum-state'), 'utf8')) as Partial<QuorumState>;
    return typeof s.leaderEpoch === 'number' && typeof s.leaderId === 'number' ? { leaderId: s.leaderId, leaderEpoch: s.leaderEpoch } : undefined;
  } catch {
    return undefined;
  }
}

/** The leader of the newest epoch any node recorded, if it has one. */
export function currentLeader(dataDirs: string[]): number | undefined {
  let best: QuorumState | undefined;
  for (const d of dataDirs) {
    const s = readQuorumState(d);
    if (s && (!best || s.leaderEpoch > best.leaderEpoch || (s.leaderEpoch === best.leaderEpoch && best.leaderId < 0))) best = s;
  }
  return best && best.leaderId >= 0 ? best.leaderId : undefined;
}
