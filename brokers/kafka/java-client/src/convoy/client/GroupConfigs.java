package convoy.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;

/** Group configs (the consumer protocol's timeouts, a share group's settings), set through the admin API before the member joins. */
final class GroupConfigs {
  private GroupConfigs() {}

  static void set(Settings settings, Map<String, String> configs) throws Exception {
    if (configs.isEmpty()) return;
    Map<String, Object> conf = new HashMap<>();
    settings.connection.forEach((k, v) -> conf.put((String) k, v));
    conf.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrap);
    conf.put(AdminClientConfig.CLIENT_ID_CONFIG, settings.clientId + "-admin");
    try (Admin admin = Admin.create(conf)) {
      List<AlterConfigOp> ops = new ArrayList<>();
      for (Map.Entry<String, String> e : configs.entrySet()) ops.add(new AlterConfigOp(new ConfigEntry(e.getKey(), e.getValue()), AlterConfigOp.OpType.SET));
      ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, settings.group);
      admin.incrementalAlterConfigs(Collections.singletonMap(group, ops)).all().get(30, TimeUnit.SECONDS);
    }
  }
}
