// The AMQP 1.0 listener: accepts connections (plain TCP, SASL ANONYMOUS/PLAIN, any credentials),
// routes each attaching link to its handler, and cleans up when links or connections go away.
import type { AddressInfo, Server, Socket } from "node:net";
import rhea from "rhea";
import type { Connection, EventContext, Receiver, Sender } from "rhea";
import { Condition } from "../model/errors.ts";
import type { Namespace } from "../model/namespace.ts";
import { CbsLink } from "./cbs.ts";
import { attachConsumer } from "./consumerAttach.ts";
import { echoTermini, LinkRegistry, refuseAttach, type Outcome } from "./links.ts";
import { ManagementLink } from "./management.ts";
import { attachProducer } from "./producer.ts";
import { ReplyLinks } from "./replies.ts";
import { ignoreFramesForEndedSessions, reportCloseAsEof } from "./rheaInternals.ts";
import { entityPath } from "../model/namespace.ts";

export interface AmqpServerOptions {
  port: number;
  host: string;
  namespace: Namespace;
  /** Idle timeout we advertise; a peer silent for twice this long is dropped (rhea's rule). */
  idleTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface AmqpServer {
  readonly port: number;
  close(): Promise<void>;
}

const CBS = "$cbs";
const MANAGEMENT_SUFFIX = "/$management";
// Room for many unsettled peek-lock deliveries per AMQP session (rhea's default is 2048).
const SESSION_BUFFER_SIZE = 65_536;

function address(terminus: unknown): string {
  return (terminus as { address?: string } | null)?.address ?? "";
}

export async function startAmqpServer(options: AmqpServerOptions): Promise<AmqpServer> {
  const { namespace } = options;
  const log = options.log ?? (() => undefined);
  const container = rhea.create_container({ id: "convoy-servicebus-emulator" });
  container.sasl_server_mechanisms.enable_anonymous();
  container.sasl_server_mechanisms.enable_plain(() => true);
  const links = new LinkRegistry();
  const replies = new ReplyLinks();

  namespace.onDelete((queue) =>
    links.abortQueue(queue, {
      condition: Condition.notFound,
      description: `The messaging entity '${queue.name}' was deleted.`,
    }),
  );

  // A client's receiver attached: our end is a sender.
  container.on("sender_open", (ctx: EventContext) => {
    const sender = ctx.sender as Sender;
    const source = address(sender.source);
    if (source === CBS || source.endsWith(MANAGEMENT_SUFFIX)) {
      echoTermini(sender);
      replies.add(ctx.connection, sender);
      links.register(ctx.connection, sender, { onClose: () => replies.remove(ctx.connection, sender) });
      return;
    }
    attachConsumer(ctx.connection, sender, namespace, links);
  });

  // A client's sender attached: our end is a receiver.
  container.on("receiver_open", (ctx: EventContext) => {
    const receiver = ctx.receiver as Receiver;
    const target = address(receiver.target);
    if (target === CBS) {
      echoTermini(receiver);
      links.register(ctx.connection, receiver, new CbsLink(ctx.connection, replies));
      return;
    }
    if (target.endsWith(MANAGEMENT_SUFFIX)) {
      echoTermini(receiver);
      try {
        const { queue, entity } = namespace.resolve(entityPath(target).slice(0, -MANAGEMENT_SUFFIX.length));
        links.register(ctx.connection, receiver, new ManagementLink(ctx.connection, receiver, queue, entity, replies));
      } catch (err) {
        refuseAttach(receiver, { condition: Condition.notFound, description: (err as Error).message });
      }
      return;
    }
    attachProducer(ctx.connection, receiver, namespace, links);
  });

  container.on("connection_open", (ctx: EventContext) => ignoreFramesForEndedSessions(ctx.connection));
  container.on("message", (ctx: EventContext) => links.get(ctx.receiver)?.onMessage?.(ctx));
  const credit = (ctx: EventContext): void => links.get(ctx.sender)?.onCredit?.();
  container.on("sendable", credit);
  container.on("sender_flow", credit);
  container.on("sender_draining", (ctx: EventContext) => links.get(ctx.sender)?.onDrain?.());
  for (const outcome of ["accepted", "rejected", "modified", "released"] as Outcome[]) {
    container.on(outcome, (ctx: EventContext) => {
      if (ctx.delivery) links.get(ctx.sender)?.onOutcome?.(ctx.delivery, outcome);
    });
  }
  container.on("sender_close", (ctx: EventContext) => links.closeLink(ctx.connection, ctx.sender as Sender));
  container.on("receiver_close", (ctx: EventContext) => links.closeLink(ctx.connection, ctx.receiver as Receiver));
  // Errors on detach/end/close are the client's business; listening keeps rhea from throwing them.
  for (const e of ["sender_error", "receiver_error", "session_error", "connection_error", "error"]) {
    container.on(e, () => undefined);
  }
  container.on("connection_close", (ctx: EventContext) => links.closeConnection(ctx.connection));
  // Abrupt disconnects (Toxiproxy, killed clients): the links die with the connection.
  container.on("disconnected", (ctx: EventContext) => links.closeConnection(ctx.connection));

  const sockets = new Set<Socket>();
  const server: Server = container.listen({
    port: options.port,
    host: options.host,
    idle_time_out: options.idleTimeoutMs ?? 60_000,
    session_buffer_size: SESSION_BUFFER_SIZE,
    sender_options: { treat_modified_as_released: false, autosettle: true },
    receiver_options: { autoaccept: false, credit_window: 1000 },
  } as never) as Server;
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    reportCloseAsEof(socket);
    socket.on("error", () => undefined);
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error): void => reject(err);
    server.once("error", onError);
    server.once("listening", () => {
      server.off("error", onError);
      resolve();
    });
  });
  server.on("error", (err) => log(`amqp server error: ${err.message}`));
  const port = (server.address() as AddressInfo).port;

  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const conn of links.connections()) links.closeConnection(conn as Connection);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
