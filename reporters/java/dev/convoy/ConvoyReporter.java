package dev.convoy;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Map;

/**
 * convoy's reporter for a consumer under test, in Java (docs/consumer-under-test.md). No
 * dependencies beyond the JDK (16+): copy this file into your service.
 *
 * <pre>
 *   ConvoyReporter report = ConvoyReporter.open();   // CONVOY_REPORT_SOCKET or CONVOY_REPORT_FILE
 *   report.ready();                                  // once the consumer holds its partitions
 *   report.start(headers, String.valueOf(record.partition()), record.offset());
 *   ... handle the record ...
 *   report.end(headers, true);                       // false: the handling failed
 * </pre>
 *
 * Headers are the record's headers as a map (values byte[] or String). Outside a convoy run
 * (neither variable set) every call does nothing. Safe to use from several threads: each line
 * is written whole.
 */
public final class ConvoyReporter implements AutoCloseable {
  private final WritableByteChannel out;

  private ConvoyReporter(WritableByteChannel out) {
    this.out = out;
  }

  public static ConvoyReporter open() throws IOException {
    String socket = System.getenv("CONVOY_REPORT_SOCKET");
    String file = System.getenv("CONVOY_REPORT_FILE");
    WritableByteChannel out = null;
    if (socket != null && !socket.isEmpty()) {
      SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
      ch.connect(UnixDomainSocketAddress.of(socket));
      out = ch;
    } else if (file != null && !file.isEmpty()) {
      out = FileChannel.open(Path.of(file), StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    }
    ConvoyReporter r = new ConvoyReporter(out);
    String process = System.getenv("CONVOY_PROCESS");
    r.write("{\"type\":\"hello\",\"protocol\":1" + (process == null ? "" : ",\"process\":" + quote(process)) + "}");
    return r;
  }

  /** The consumer has joined its group (holds its partitions). */
  public void ready() {
    write("{\"type\":\"ready\",\"at\":" + nowMicros() + "}");
  }

  /** Handling of one record begins; lane: the partition number, offset: its offset (or -1 when unknown). */
  public void start(Map<String, ?> headers, String lane, long offset) {
    StringBuilder b = new StringBuilder("{\"type\":\"start\",\"at\":").append(nowMicros()).append(",\"headers\":");
    headers(b, headers);
    if (lane != null) b.append(",\"lane\":").append(quote(lane));
    if (offset >= 0) b.append(",\"offset\":").append(offset);
    write(b.append('}').toString());
  }

  /** Handling of that record ended: ok, or failed. */
  public void end(Map<String, ?> headers, boolean ok) {
    StringBuilder b = new StringBuilder("{\"type\":\"end\",\"at\":").append(nowMicros()).append(",\"outcome\":").append(ok ? "\"ok\"" : "\"error\"").append(",\"headers\":");
    headers(b, headers);
    write(b.append('}').toString());
  }

  @Override
  public synchronized void close() throws IOException {
    if (out != null) out.close();
  }

  private static long nowMicros() {
    Instant t = Instant.now();
    return t.getEpochSecond() * 1_000_000L + t.getNano() / 1_000;
  }

  private static void headers(StringBuilder b, Map<String, ?> headers) {
    b.append('{');
    boolean first = true;
    for (Map.Entry<String, ?> e : headers.entrySet()) {
      Object v = e.getValue();
      if (v == null) continue;
      String s = v instanceof byte[] ? new String((byte[]) v, StandardCharsets.UTF_8) : v.toString();
      if (!first) b.append(',');
      first = false;
      b.append(quote(e.getKey())).append(':').append(quote(s));
    }
    b.append('}');
  }

  private static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"': b.append("\\\""); break;
        case '\\': b.append("\\\\"); break;
        case '\n': b.append("\\n"); break;
        case '\r': b.append("\\r"); break;
        case '\t': b.append("\\t"); break;
        default:
          if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
          else b.append(c);
      }
    }
    return b.append('"').toString();
  }

  private synchronized void write(String line) {
    if (out == null) return;
    ByteBuffer buf = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
    try {
      while (buf.hasRemaining()) out.write(buf);
    } catch (IOException e) {
      throw new IllegalStateException("convoy reporter: " + e.getMessage(), e);
    }
  }
}
