/**
 * A signal from a worker to itself and the processes it started (a client process behind the
 * client protocol): a worker leads its own process group (pool.ts starts it detached), so a
 * crash or a freeze of "the consumer" takes its client with it, as it would take a service's
 * in-process client. A process that leads no group of its own signals only itself.
 */
import { readFileSync } from 'node:fs';

function leadsOwnGroup(): boolean {
  try {
    // /proc/self/stat: "pid (comm) state ppid pgrp ..."; comm may hold spaces, so read after ")".
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
    return pgrp === process.pid;
  } catch {
    return false;
  }
}

export function signalOwnGroup(sig: NodeJS.Signals): void {
  process.kill(leadsOwnGroup() ? -process.pid : process.pid, sig);
}
