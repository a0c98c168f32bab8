import { ServiceBusAdministrationClient, ServiceBusClient } from '@azure/service-bus';
import type { BrokerAdmin, RemainingReport, RunNames } from '../../harness/broker/contract.ts';
import { queueName, type ServiceBusEndpoint } from './endpoint.ts';
import { isoDuration, type ServiceBusSettings } from './settings.ts';

/**
 * The run's queue: created through the emulator's HTTP queue API, or through the SDK's
 * administration client on a real namespace. Redrive moves the dead-letter queue's messages
 * back into the queue as new messages (new sequence numbers: order for their session is then
 * broken).
 */
export class ServiceBusAdmin implements BrokerAdmin {
  private readonly queue: string;

  constructor(private readonly endpoint: ServiceBusEndpoint, private readonly settings: ServiceBusSettings, names: RunNames) {
    this.queue = queueName(names.prefix);
  }

  async createDestinations(): Promise<void> {
    const props = {
      RequiresSession: this.settings.sessions,
      MaxDeliveryCount: this.settings.maxDeliveryCount,
      LockDuration: isoDuration(this.settings.lockDurationMs),
    };
    if (this.endpoint.adminUrl) {
      const res = await fetch(`${this.endpoint.adminUrl}/queues/${encodeURIComponent(this.queue)}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ Properties: props }),
      });
      if (!res.ok) throw new Error(`creating queue ${this.queue}: HTTP ${res.status} ${await res.text()}`);
      return;
    }
    await new ServiceBusAdministrationClient(this.endpoint.connectionString).createQueue(this.queue, {
      requiresSession: props.RequiresSession,
      maxDeliveryCount: props.MaxDeliveryCount,
      lockDuration: props.LockDuration,
    });
  }

  async deleteDestinations(): Promise<void> {
    if (this.endpoint.adminUrl) {
      await fetch(`${this.endpoint.adminUrl}/queues/${encodeURIComponent(this.queue)}`, { method: 'DELETE' });
      return;
    }
    await new ServiceBusAdministrationClient(this.endpoint.connectionString).deleteQueue(this.queue);
  }

  async lanes(): Promise<string[]> {
    return [this.queue];
  }

  async redriveDeadLetters(): Promise<number> {
    const client = new ServiceBusClient(this.endpoint.connectionString);
    try {
      const dlq = client.createReceiver(this.queue, { subQueueType: 'deadLetter' });
      const sender = client.createSender(this.queue);
      let moved = 0;
      for (;;) {
        const batch = await dlq.receiveMessages(50, { maxWaitTimeInMs: 1_000 });
        if (batch.length === 0) break;
        for (const m of batch) {
          await sender.sendMessages({ body: m.body, sessionId: m.sessionId, messageId: `${String(m.messageId)}-redrive-${moved}`, applicationProperties: m.applicationProperties });
          await dlq.completeMessage(m);
          moved++;
        }
      }
      await dlq.close();
      await sender.close();
      return moved;
    } finally {
      await client.close();
    }
  }

  /**
   * Messages the run's queue still holds: active, locked (they come back when the lock ends),
   * deferred, scheduled and dead-lettered. The emulator counts them itself (GET /queues/<name>);
   * a real namespace through the administration client's runtime properties. One queue: no lanes.
   */
  async remaining(): Promise<RemainingReport> {
    if (this.endpoint.adminUrl) {
      const res = await fetch(`${this.endpoint.adminUrl}/queues/${encodeURIComponent(this.queue)}`);
      if (!res.ok) return { known: false, total: null, reason: `the emulator answered HTTP ${res.status}` };
      const info = (await res.json()) as { counts?: Record<string, number> };
      const c = info.counts ?? {};
      const total = ['active', 'locked', 'deferred', 'scheduled', 'deadLetter'].reduce((n, k) => n + Number(c[k] ?? 0), 0);
      return { known: true, total, deliverable: total - Number(c.deadLetter ?? 0), detail: { queue: this.queue, ...c } };
    }
    const p = await new ServiceBusAdministrationClient(this.endpoint.connectionString).getQueueRuntimeProperties(this.queue);
    // totalMessageCount covers active, scheduled, dead-lettered and transfer queues; locked
    // messages count as active on the service.
    const total = p.totalMessageCount ?? p.activeMessageCount + p.deadLetterMessageCount + p.scheduledMessageCount;
    return {
      known: true,
      total,
      deliverable: Math.max(0, total - p.deadLetterMessageCount),
      detail: { queue: this.queue, active: p.activeMessageCount, deadLetter: p.deadLetterMessageCount, scheduled: p.scheduledMessageCount },
    };
  }

  async close(): Promise<void> {}
}
