package convoy.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * convoy's request proxy: a Kafka protocol proxy on the client links, between Toxiproxy and each
 * broker, that acts on single requests (docs in brokers/kafka/README.md). Listens on loopback
 * only: one port per broker (`--listen node-1=127.0.0.1:9092`), and a control port speaking
 * JSON over HTTP. Its first stdout line says which ports it took.
 */
public final class Main {
  private static final ObjectMapper JSON = new ObjectMapper();

  public static void main(String[] args) throws Exception {
    String admin = null;
    Map<String, String> upstreams = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--admin" -> admin = args[++i];
        case "--listen" -> {
          String[] kv = args[++i].split("=", 2);
          upstreams.put(kv[0], kv[1]);
        }
        default -> {
          System.err.println("convoy request proxy: unknown argument " + args[i]);
          System.exit(2);
        }
      }
    }
    InetAddress loopback = InetAddress.getLoopbackAddress();
    Rules rules = new Rules(admin);
    ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "proxy-timers");
      t.setDaemon(true);
      return t;
    });
    AtomicInteger linkIds = new AtomicInteger();
    ObjectNode ready = JSON.createObjectNode();
    ObjectNode listeners = ready.putObject("listeners");
    for (Map.Entry<String, String> u : upstreams.entrySet()) {
      ServerSocket server = new ServerSocket(0, 128, loopback);
      listeners.put(u.getKey(), server.getLocalPort());
      String[] hp = u.getValue().split(":");
      String name = u.getKey();
      Thread accept = new Thread(() -> {
        while (true) {
          try {
            Socket client = server.accept();
            client.setTcpNoDelay(true);
            Socket broker = new Socket(hp[0], Integer.parseInt(hp[1]));
            broker.setTcpNoDelay(true);
            Link link = new Link(linkIds.incrementAndGet(), name, client, broker, rules, timers);
            rules.opened(link);
            link.start();
          } catch (IOException e) {
            System.err.println("convoy request proxy: " + name + ": " + e.getMessage());
          }
        }
      }, "proxy-accept-" + name);
      accept.start();
    }
    HttpServer control = HttpServer.create(new InetSocketAddress(loopback, 0), 16);
    control.createContext("/", ex -> {
      try {
        serve(ex, rules);
      } catch (Exception e) {
        reply(ex, 500, JSON.createObjectNode().put("error", e.toString()));
      }
    });
    control.start();
    ready.put("control", control.getAddress().getPort());
    System.out.println(JSON.writeValueAsString(ready));
    System.out.flush();
  }

  private static void serve(HttpExchange ex, Rules rules) throws Exception {
    String path = ex.getRequestURI().getPath();
    String method = ex.getRequestMethod();
    if (path.equals("/health")) {
      ObjectNode o = JSON.createObjectNode();
      o.put("ok", true);
      o.put("connections", rules.connections);
      o.put("open", rules.open());
      var ids = o.putArray("rules");
      for (Rule r : rules.all()) ids.add(r.id);
      var warnings = o.putArray("warnings");
      rules.warnings().forEach(warnings::add);
      reply(ex, 200, o);
    } else if (path.equals("/rules") && method.equals("POST")) {
      JsonNode spec = JSON.readTree(ex.getRequestBody().readAllBytes());
      try {
        Rule rule = new Rule(spec);
        rules.add(rule);
        reply(ex, 200, rule.describe());
      } catch (IllegalArgumentException e) {
        reply(ex, 400, JSON.createObjectNode().put("error", e.getMessage()));
      }
    } else if (path.startsWith("/rules/")) {
      String id = path.substring("/rules/".length());
      Rule r = method.equals("DELETE") ? rules.remove(id) : rules.all().stream().filter(x -> x.id.equals(id)).findFirst().orElse(null);
      if (r == null) reply(ex, 404, JSON.createObjectNode().put("error", "no rule " + id));
      else reply(ex, 200, r.describe());
    } else {
      reply(ex, 404, JSON.createObjectNode().put("error", "no such path " + path));
    }
  }

  private static void reply(HttpExchange ex, int status, JsonNode body) throws IOException {
    byte[] bytes = JSON.writeValueAsString(body).getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().add("content-type", "application/json");
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }
}
