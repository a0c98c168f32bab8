/**
 * Hosts for tests that cross a real network boundary: each host is a Linux network namespace
 * with an address of its own, joined to the others through veth pairs on a bridge that lives in
 * a namespace of its own too (the hub), so no traffic reaches the machine's own interfaces.
 * Needs root and iproute2. Every name carries this process's id, so two test processes never
 * meet, and `close()` deletes everything it made (a namespace's veth ends go with it).
 *
 *   hub (bridge br0, no address)
 *    ├── veth ── runner  10.<net>.0.1/24
 *    ├── veth ── agent-a 10.<net>.0.2/24
 *    ├── veth ── agent-b 10.<net>.0.3/24
 *    └── veth ── broker  10.<net>.0.4/24
 *
 * (each name given gets the next address, in order: these are the names the tests give).
 */
import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

export interface Host {
  name: string;
  /** The namespace's name (for `ip netns exec`). */
  ns: string;
  address: string;
  /** Starts a program inside the host's namespace. */
  spawn(command: string, args: string[], options?: SpawnOptions): ChildProcess;
  /** Runs a program inside the host's namespace and returns its stdout. */
  run(command: string, args: string[]): string;
  /** Cuts the host off the network (its link on the hub goes down); `reconnect` undoes it. */
  cut(): void;
  reconnect(): void;
}

export interface Network {
  hosts: Record<string, Host>;
  close(): void;
}

const ip = (...args: string[]): string => execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Why these tests cannot run here, or null when they can (root, and `ip netns` works). */
export function netnsUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'network namespaces need root';
  try {
    ip('netns', 'list');
    return null;
  } catch (err) {
    return `ip netns does not work here: ${(err as Error).message.split('\n')[0]}`;
  }
}

/**
 * Makes one namespace per name and the hub. `net` picks the /24 (10.<net>.0.0); by default one
 * derived from the process id, so concurrent test processes use different subnets.
 */
export function makeNetwork(names: string[], net = 100 + (process.pid % 150)): Network {
  const tag = `cv${process.pid}`;
  const hub = `${tag}-hub`;
  const made: string[] = [];
  const hosts: Record<string, Host> = {};
  const close = (): void => {
    for (const ns of made.reverse()) {
      try {
        ip('netns', 'delete', ns);
      } catch {
        /* already gone */
      }
    }
    made.length = 0;
  };
  try {
    ip('netns', 'add', hub);
    made.push(hub);
    ip('-n', hub, 'link', 'add', 'br0', 'type', 'bridge');
    ip('-n', hub, 'link', 'set', 'br0', 'up');
    ip('-n', hub, 'link', 'set', 'lo', 'up');
    names.forEach((name, i) => {
      const ns = `${tag}-${name}`;
      const address = `10.${net}.0.${i + 1}`;
      ip('netns', 'add', ns);
      made.push(ns);
      const hubEnd = `h${i}`;
      // Made in the host's namespace, then one end moved into the hub's.
      ip('-n', ns, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', hubEnd);
      ip('-n', ns, 'link', 'set', hubEnd, 'netns', hub);
      ip('-n', hub, 'link', 'set', hubEnd, 'master', 'br0');
      ip('-n', hub, 'link', 'set', hubEnd, 'up');
      ip('-n', ns, 'addr', 'add', `${address}/24`, 'dev', 'eth0');
      ip('-n', ns, 'link', 'set', 'eth0', 'up');
      ip('-n', ns, 'link', 'set', 'lo', 'up');
      hosts[name] = {
        name,
        ns,
        address,
        spawn: (command, args, options = {}) => spawn('ip', ['netns', 'exec', ns, command, ...args], options),
        run: (command, args) => ip('netns', 'exec', ns, command, ...args),
        cut: () => void ip('-n', hub, 'link', 'set', hubEnd, 'down'),
        reconnect: () => void ip('-n', hub, 'link', 'set', hubEnd, 'up'),
      };
    });
  } catch (err) {
    close();
    throw err;
  }
  return { hosts, close };
}
