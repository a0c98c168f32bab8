package convoy.proxy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiKeys;

/** The active rules, the open links, and what the proxy has to say about itself. */
final class Rules {
  private final List<Rule> rules = new CopyOnWriteArrayList<>();
  private final Set<Link> links = ConcurrentHashMap.newKeySet();
  private final Map<Uuid, String> topicNames = new ConcurrentHashMap<>();
  private final Set<String> warned = ConcurrentHashMap.newKeySet();
  private final String adminBootstrap;
  volatile long connections;

  Rules(String adminBootstrap) {
    this.adminBootstrap = adminBootstrap;
  }

  boolean active() {
    return !rules.isEmpty();
  }

  List<Rule> matching(ApiKeys api) {
    List<Rule> out = new ArrayList<>(2);
    for (Rule r : rules) if (r.apis.contains(api)) out.add(r);
    return out;
  }

  void add(Rule rule) throws Exception {
    for (Rule r : rules) if (r.id.equals(rule.id)) throw new IllegalArgumentException("a rule " + rule.id + " is active already");
    if (rule.topic != null && (!topicNames.containsValue(rule.topic) || rule.leaderOf != null)) learnTopic(rule);
    rules.add(rule);
  }

  Rule remove(String id) {
    for (Rule r : rules) {
      if (r.id.equals(id)) {
        rules.remove(r);
        return r;
      }
    }
    return null;
  }

  List<Rule> all() {
    return Collections.unmodifiableList(rules);
  }

  /**
   * Produce v13 and Fetch v13 name topics by id: the id of a rule's topic, from the broker's admin
   * listener; and, for a rule with `leaderOf`, the node that leads that partition now.
   */
  private void learnTopic(Rule rule) throws Exception {
    if (adminBootstrap == null || adminBootstrap.isEmpty()) {
      if (rule.leaderOf != null) throw new IllegalArgumentException("rule " + rule.id + ": leaderOf needs the admin listener (--admin)");
      return;
    }
    String topic = rule.topic;
    Map<String, Object> conf = Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, adminBootstrap, AdminClientConfig.CLIENT_ID_CONFIG, "convoy-request-proxy");
    try (Admin admin = Admin.create(conf)) {
      TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(20, TimeUnit.SECONDS).get(topic);
      if (d != null && d.topicId() != null) topicNames.put(d.topicId(), topic);
      if (rule.leaderOf != null) {
        TopicPartitionInfo p = d == null ? null : d.partitions().stream().filter(x -> x.partition() == rule.leaderOf).findFirst().orElse(null);
        if (p == null) throw new IllegalArgumentException("rule " + rule.id + ": topic " + topic + " has no partition " + rule.leaderOf);
        if (p.leader() == null || p.leader().isEmpty()) throw new IllegalArgumentException("rule " + rule.id + ": partition " + rule.leaderOf + " of " + topic + " has no leader now");
        rule.nodes = Set.of("node-" + p.leader().id());
      }
    }
  }

  String topicName(Codec.TopicPartitionRef r) {
    if (r.topic() != null && !r.topic().isEmpty()) return r.topic();
    String n = r.topicId() == null ? null : topicNames.get(r.topicId());
    return n != null ? n : String.valueOf(r.topicId());
  }

  void warnOnce(String line) {
    if (warned.add(line)) System.err.println("convoy request proxy: warning: " + line);
  }

  Set<String> warnings() {
    return warned;
  }

  void opened(Link l) {
    links.add(l);
    connections++;
  }

  void closed(Link l) {
    links.remove(l);
  }

  int open() {
    return links.size();
  }
}
