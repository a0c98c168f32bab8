package convoy.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client protocol's lines on the worker's Unix domain socket: one JSON object per line,
 * both ways. Reads and writes go straight to the channel (its read and write locks are
 * separate; the JDK's stream adapters would share one lock and block writes during a read).
 * Lines are written by one thread, which drains its queue into a single write.
 */
final class Wire {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final long START = System.nanoTime();

  private final SocketChannel channel;
  private final LinkedBlockingQueue<String> out = new LinkedBlockingQueue<>();
  private final ByteBuffer in = ByteBuffer.allocate(1 << 16);
  private byte[] partial = new byte[0];
  private final List<String> lines = new ArrayList<>();
  private final AtomicLong queued = new AtomicLong();
  private final AtomicLong written = new AtomicLong();
  private volatile boolean closed;
  private final Thread writer;

  private Wire(SocketChannel channel) {
    this.channel = channel;
    this.writer = new Thread(this::writeLoop, "convoy-wire-writer");
    this.writer.setDaemon(true);
    this.writer.start();
  }

  static Wire connect(String path) throws IOException {
    SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
    ch.connect(UnixDomainSocketAddress.of(path));
    return new Wire(ch);
  }

  /** The client's monotonic clock in microseconds. */
  static double clockUs() {
    return (System.nanoTime() - START) / 1000.0;
  }

  static ObjectNode message(String type) {
    ObjectNode m = JSON.createObjectNode();
    m.put("type", type);
    return m;
  }

  void write(ObjectNode m) {
    if (closed) return;
    try {
      queued.incrementAndGet();
      out.add(JSON.writeValueAsString(m));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  void log(String line) {
    ObjectNode m = message("log");
    m.put("line", line);
    write(m);
  }

  /** The next line from the worker, or null once the socket closed. */
  JsonNode read() throws IOException {
    while (lines.isEmpty()) {
      in.clear();
      int n = channel.read(in);
      if (n < 0) return null;
      split(in.array(), n);
    }
    return JSON.readTree(lines.remove(0));
  }

  private void split(byte[] bytes, int n) {
    int start = 0;
    for (int i = 0; i < n; i++) {
      if (bytes[i] != '\n') continue;
      byte[] line = new byte[partial.length + i - start];
      System.arraycopy(partial, 0, line, 0, partial.length);
      System.arraycopy(bytes, start, line, partial.length, i - start);
      partial = new byte[0];
      start = i + 1;
      if (line.length > 0) lines.add(new String(line, StandardCharsets.UTF_8));
    }
    if (start < n) {
      byte[] rest = new byte[partial.length + n - start];
      System.arraycopy(partial, 0, rest, 0, partial.length);
      System.arraycopy(bytes, start, rest, partial.length, n - start);
      partial = rest;
    }
  }

  private void writeLoop() {
    List<String> batch = new ArrayList<>();
    StringBuilder text = new StringBuilder();
    try {
      while (true) {
        batch.add(out.take());
        out.drainTo(batch);
        text.setLength(0);
        for (String s : batch) text.append(s).append('\n');
        ByteBuffer buf = ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8));
        while (buf.hasRemaining()) channel.write(buf);
        written.addAndGet(batch.size());
        batch.clear();
      }
    } catch (InterruptedException | IOException e) {
      // The worker is gone or we are closing: nothing more can be said.
    }
  }

  boolean isClosed() {
    return closed;
  }

  /** Waits (bounded) until every queued line is written, then closes the socket. */
  void flushAndClose(long timeoutMs) {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (written.get() < queued.get() && System.currentTimeMillis() < deadline) {
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        break;
      }
    }
    closed = true;
    writer.interrupt();
    try {
      channel.close();
    } catch (IOException ignored) {
    }
  }
}
