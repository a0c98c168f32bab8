package convoy.client;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Kafka client's own log (slf4j-simple, warnings and errors, on stderr) line by line: each
 * line still goes to stderr (the worker keeps the last ones for its error messages), reaches the
 * worker's log as a `log` line (at most LIMIT per window, then a count), and the errors the
 * producer met and retried are counted by name for `errors-seen`.
 */
final class ClientLog extends OutputStream {
  /** "Got error produce response with correlation id 7 on topic-partition t-0, retrying (4 attempts left). Error: NOT_ENOUGH_REPLICAS" */
  private static final Pattern RETRIED = Pattern.compile("Got error produce response .* retrying .*Error: ([A-Z_]+)");
  private static final int LIMIT = 40;
  private static final long WINDOW_MS = 5_000;

  private final PrintStream original;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream();
  private final Map<String, Integer> errors = new TreeMap<>();
  private volatile Wire wire;
  private long windowStart;
  private int inWindow;
  private int dropped;

  private ClientLog(PrintStream original) {
    this.original = original;
  }

  /** Puts itself between the JVM's stderr and everything that writes to it. */
  static ClientLog install() {
    ClientLog log = new ClientLog(System.err);
    System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
    return log;
  }

  void attach(Wire wire) {
    this.wire = wire;
  }

  synchronized Map<String, Integer> errorsSeen() {
    return new TreeMap<>(errors);
  }

  @Override
  public synchronized void write(int b) {
    if (b == '\n') flushLine();
    else line.write(b);
  }

  @Override
  public synchronized void write(byte[] b, int off, int len) {
    for (int i = off; i < off + len; i++) write(b[i]);
  }

  private void flushLine() {
    String text = line.toString(StandardCharsets.UTF_8);
    line.reset();
    original.println(text);
    count(text);
    Wire w = wire;
    if (w == null || text.isBlank()) return;
    long now = System.currentTimeMillis();
    if (now - windowStart > WINDOW_MS) {
      if (dropped > 0) w.log("(" + dropped + " more client log lines in the last " + WINDOW_MS / 1000 + " s)");
      windowStart = now;
      inWindow = 0;
      dropped = 0;
    }
    if (inWindow++ < LIMIT) w.log(text);
    else dropped++;
  }

  private void count(String text) {
    Matcher m = RETRIED.matcher(text);
    if (m.find()) errors.merge(m.group(1), 1, Integer::sum);
  }
}
