// Duplicate detection: remembers MessageIds for the queue's DuplicateDetectionHistoryTimeWindow.

export class DuplicateDetector {
  // Insertion order equals expiry order because the window is fixed, so pruning stops early.
  private readonly seen = new Map<string, number>();

  constructor(private readonly windowMs: number) {}

  /** Returns true when the id was seen inside the window; otherwise records it. */
  isDuplicate(messageId: string, now: number): boolean {
    this.prune(now);
    if (this.seen.has(messageId)) return true;
    this.seen.set(messageId, now + this.windowMs);
    return false;
  }

  private prune(now: number): void {
    for (const [id, expires] of this.seen) {
      if (expires > now) break;
      this.seen.delete(id);
    }
  }
}
