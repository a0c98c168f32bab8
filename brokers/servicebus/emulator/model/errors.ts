// Error conditions the SDK understands (@azure/core-amqp's ConditionErrorNameMapper), raised by
// the broker model and turned into AMQP errors or $management status codes by the protocol layer.

export const Condition = {
  notFound: "amqp:not-found",
  notAllowed: "amqp:not-allowed",
  internalError: "amqp:internal-error",
  notImplemented: "amqp:not-implemented",
  messageSizeExceeded: "amqp:link:message-size-exceeded",
  messageLockLost: "com.microsoft:message-lock-lost",
  sessionLockLost: "com.microsoft:session-lock-lost",
  sessionCannotBeLocked: "com.microsoft:session-cannot-be-locked",
  messageNotFound: "com.microsoft:message-not-found",
  timeout: "com.microsoft:timeout",
  argumentError: "com.microsoft:argument-error",
} as const;

export type ConditionName = (typeof Condition)[keyof typeof Condition];

/** HTTP-style status the $management protocol pairs with each condition. */
export const STATUS_BY_CONDITION: Record<ConditionName, number> = {
  "amqp:not-found": 404,
  "amqp:not-allowed": 400,
  "amqp:internal-error": 500,
  "amqp:not-implemented": 501,
  "amqp:link:message-size-exceeded": 413,
  "com.microsoft:message-lock-lost": 410,
  "com.microsoft:session-lock-lost": 410,
  "com.microsoft:session-cannot-be-locked": 409,
  "com.microsoft:message-not-found": 404,
  "com.microsoft:timeout": 408,
  "com.microsoft:argument-error": 400,
};

export class BrokerError extends Error {
  constructor(
    readonly condition: ConditionName,
    description: string,
  ) {
    super(description);
    this.name = "BrokerError";
  }
}

export function asBrokerError(err: unknown): BrokerError {
  if (err instanceof BrokerError) return err;
  return new BrokerError(Condition.internalError, err instanceof Error ? err.message : String(err));
}
