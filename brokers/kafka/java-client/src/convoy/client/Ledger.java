package convoy.client;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The delivered offsets of one partition, in delivery order, as every convoy Kafka consumer
 * keeps them: an offset may be committed once it and every offset delivered before it are
 * settled (the settled prefix), a seek back forgets everything from its offset on, and a
 * revocation makes every outstanding delivery stale.
 */
final class Ledger {
  static final class Entry {
    final long offset;
    boolean settled;
    boolean dropped;

    Entry(long offset) {
      this.offset = offset;
    }
  }

  /** Deliveries per offset by this consumer, for the offsets delivered most recently. */
  static final class Counts extends LinkedHashMap<Long, Integer> {
    private static final int KEEP = 20_000;

    int bump(long offset) {
      return merge(offset, 1, Integer::sum);
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<Long, Integer> eldest) {
      return size() > KEEP;
    }
  }

  private final ArrayDeque<Entry> entries = new ArrayDeque<>();
  private final Counts counts;
  /** The next offset to commit once something was settled; -1 before. */
  long committable = -1;
  long committed = -1;

  Ledger(Counts counts) {
    this.counts = counts;
  }

  Entry deliver(long offset) {
    Entry e = new Entry(offset);
    entries.addLast(e);
    return e;
  }

  int count(long offset) {
    return counts.bump(offset);
  }

  /** Marks the entry settled; true when the settled prefix moved. */
  boolean settle(Entry e) {
    e.settled = true;
    boolean moved = false;
    while (!entries.isEmpty() && entries.peekFirst().settled) {
      committable = entries.pollFirst().offset + 1;
      moved = true;
    }
    return moved;
  }

  void rewind(long offset) {
    for (Iterator<Entry> it = entries.iterator(); it.hasNext(); ) {
      Entry e = it.next();
      if (e.offset >= offset) {
        e.dropped = true;
        it.remove();
      }
    }
  }

  void drop() {
    for (Entry e : entries) e.dropped = true;
    entries.clear();
  }
}
