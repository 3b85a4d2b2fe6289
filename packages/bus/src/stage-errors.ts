/**
 * Thrown by a stage's logic when its step failed in a way that may pass on a later try
 * (a tool server that died and is being restarted, a call another replica still holds):
 * the packet is given back to JetStream (`nak`) and delivered again after `delayMs`, until
 * the consumer's `max_deliver` is spent and the packet is dead-lettered. Any other error
 * ends the packet FAILED at once.
 */
export class RetryLater extends Error {
  constructor(
    message: string,
    /** Least wait before the next delivery; absent: the stage's STAGE_RETRY_DELAY_MS. */
    readonly delayMs?: number,
  ) {
    super(message);
    this.name = "RetryLater";
  }
}
