/**
 * Deploying the memory broker: a MemoryBroker object in this (the runner's) process, found
 * again by its endpoint's instance id. Clients in this process link to it directly; clients in
 * worker processes get their link from the runner, which serves the deployment's `host`.
 */
import { randomBytes } from 'node:crypto';
import type { DeployContext, Deployment, Endpoint } from '../../harness/broker/contract.ts';
import { directLink, type PeerLink } from '../../harness/broker/in-process.ts';
import { InputError } from '../../harness/errors.ts';
import { runnerLink } from '../../harness/workers/runner-link.ts';
import { MemoryBroker } from './broker.ts';
import type { MemorySettings } from './settings.ts';

const instances = new Map<string, MemoryBroker>();

export interface MemoryEndpoint {
  instance: string;
}

export function asEndpoint(e: Endpoint): MemoryEndpoint {
  if (typeof e.instance !== 'string') throw new InputError('memory broker: the endpoint names no instance');
  return { instance: e.instance };
}

export async function deployLocal(ctx: DeployContext, settings: MemorySettings): Promise<Deployment> {
  if (ctx.persistent) throw new InputError('the memory broker lives in one process: it cannot outlive it (`convoy brokers up` does not apply)');
  const instance = `memory-${randomBytes(4).toString('hex')}`;
  const broker = new MemoryBroker(settings);
  instances.set(instance, broker);
  return {
    broker: 'memory',
    runtime: 'local',
    endpoint: { instance },
    versions: { memory: 'in-process' },
    emulator: { name: 'convoy memory broker', version: '1', notes: 'a test double inside the runner process; never a broker to judge' },
    links: [],
    nodes: [],
    logFiles: [],
    host: broker,
    stop: async () => {
      broker.close();
      instances.delete(instance);
    },
  };
}

/** The broker itself, when it lives in this process (admin, tests). */
export function localInstance(e: MemoryEndpoint): MemoryBroker | undefined {
  return instances.get(e.instance);
}

let peers = 0;

/** A client's link: direct in the runner's process, over its stream to the runner from a worker. */
export function linkTo(e: MemoryEndpoint, who: string): PeerLink {
  const local = localInstance(e);
  return local ? directLink(local, `${who}@${process.pid}.${++peers}`) : runnerLink();
}
