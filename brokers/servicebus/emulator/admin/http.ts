// A small HTTP API so a harness in another process can create and delete queues at runtime
// (convoy names queues by run id):
//   GET    /health                  -> {"status":"ok"}
//   GET    /queues                  -> [QueueInfo]
//   GET    /queues/<name>           -> QueueInfo
//   PUT    /queues/<name>  {Properties in Config.json shape, or the Properties object itself}
//                                   -> 201 QueueInfo (409 if it exists)
//   DELETE /queues/<name>           -> 204 (404 if unknown)
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { formatDuration } from "../duration.ts";
import { BrokerError } from "../model/errors.ts";
import type { Namespace } from "../model/namespace.ts";
import type { QueueEntity } from "../model/queue.ts";
import type { QueuePropertiesInput } from "../config.ts";

export interface AdminServer {
  readonly port: number;
  close(): Promise<void>;
}

export function queueInfo(queue: QueueEntity): Record<string, unknown> {
  const p = queue.props;
  return {
    name: queue.name,
    properties: {
      RequiresSession: p.requiresSession,
      MaxDeliveryCount: p.maxDeliveryCount,
      LockDuration: formatDuration(p.lockDurationMs),
      DefaultMessageTimeToLive: formatDuration(p.defaultMessageTtlMs),
      DeadLetteringOnMessageExpiration: p.deadLetteringOnMessageExpiration,
      RequiresDuplicateDetection: p.requiresDuplicateDetection,
      DuplicateDetectionHistoryTimeWindow: formatDuration(p.duplicateDetectionWindowMs),
    },
    counts: queue.stats(),
  };
}

function send(res: ServerResponse, status: number, body?: unknown): void {
  res.writeHead(status, body === undefined ? {} : { "content-type": "application/json" });
  res.end(body === undefined ? undefined : JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8").trim();
  return text === "" ? {} : JSON.parse(text);
}

async function handle(namespace: Namespace, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://localhost");
  const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  if (req.method === "GET" && url.pathname === "/health") return send(res, 200, { status: "ok" });
  if (parts[0] !== "queues" || parts.length > 2) return send(res, 404, { error: "not found" });
  if (parts.length === 1) {
    if (req.method !== "GET") return send(res, 405, { error: "method not allowed" });
    return send(res, 200, namespace.list().map(queueInfo));
  }
  const name = parts[1];
  switch (req.method) {
    case "GET": {
      const q = namespace.getQueue(name);
      return q ? send(res, 200, queueInfo(q)) : send(res, 404, { error: `queue ${name} not found` });
    }
    case "PUT": {
      const doc = (await readJson(req)) as { Properties?: QueuePropertiesInput } & QueuePropertiesInput;
      if (namespace.getQueue(name)) return send(res, 409, { error: `queue ${name} exists` });
      return send(res, 201, queueInfo(namespace.createQueue(name, doc.Properties ?? doc)));
    }
    case "DELETE":
      return namespace.deleteQueue(name) ? send(res, 204) : send(res, 404, { error: `queue ${name} not found` });
    default:
      return send(res, 405, { error: "method not allowed" });
  }
}

export async function startAdminServer(namespace: Namespace, port: number, host: string): Promise<AdminServer> {
  const server: Server = createServer((req, res) => {
    handle(namespace, req, res).catch((err: unknown) => {
      const status = err instanceof BrokerError || err instanceof SyntaxError || err instanceof Error ? 400 : 500;
      send(res, status, { error: err instanceof Error ? err.message : String(err) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
