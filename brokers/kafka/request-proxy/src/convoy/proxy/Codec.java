package convoy.proxy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiPredicate;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Requests and responses decoded and encoded with Kafka's own generated message classes
 * (kafka-clients, the broker's version), only for the requests a rule selects. A frame is the
 * bytes after the 4-byte size prefix.
 */
final class Codec {
  private Codec() {}

  /** A partition of a Produce request or response: its topic (name, or id from Produce v13) and index. */
  record TopicPartitionRef(String topic, Uuid topicId, int partition) {
    String describe() {
      return (topic != null && !topic.isEmpty() ? topic : topicId.toString()) + "-" + partition;
    }
  }

  static RequestHeader header(ByteBuffer frame) {
    return RequestHeader.parse(frame.duplicate());
  }

  static ProduceRequestData produce(ByteBuffer frame) {
    ByteBuffer b = frame.duplicate();
    RequestHeader h = RequestHeader.parse(b);
    return ((ProduceRequest) AbstractRequest.parseRequest(ApiKeys.PRODUCE, h.apiVersion(), new ByteBufferAccessor(b)).request).data();
  }

  static List<TopicPartitionRef> partitions(ProduceRequestData data) {
    List<TopicPartitionRef> out = new ArrayList<>();
    for (ProduceRequestData.TopicProduceData t : data.topicData()) {
      for (ProduceRequestData.PartitionProduceData p : t.partitionData()) out.add(new TopicPartitionRef(t.name(), t.topicId(), p.index()));
    }
    return out;
  }

  /** The request without the selected partitions (null when none is left), in the same header. */
  static ByteBuffer withoutPartitions(ByteBuffer frame, BiPredicate<ProduceRequestData.TopicProduceData, Integer> selected) {
    ByteBuffer b = frame.duplicate();
    RequestHeader h = RequestHeader.parse(b);
    ProduceRequestData data = ((ProduceRequest) AbstractRequest.parseRequest(ApiKeys.PRODUCE, h.apiVersion(), new ByteBufferAccessor(b)).request).data();
    ProduceRequestData.TopicProduceDataCollection kept = new ProduceRequestData.TopicProduceDataCollection();
    for (ProduceRequestData.TopicProduceData t : data.topicData()) {
      List<ProduceRequestData.PartitionProduceData> parts = new ArrayList<>();
      for (ProduceRequestData.PartitionProduceData p : t.partitionData()) if (!selected.test(t, p.index())) parts.add(p);
      if (!parts.isEmpty()) kept.add(t.duplicate().setPartitionData(parts));
    }
    if (kept.isEmpty()) return null;
    data.setTopicData(kept);
    return new ProduceRequest.Builder(h.apiVersion(), h.apiVersion(), data).build(h.apiVersion()).serializeWithHeader(h);
  }

  /** A Produce response naming `errors` for these partitions, to a request that was not forwarded. */
  static ByteBuffer produceErrorResponse(int correlationId, short version, List<TopicPartitionRef> partitions, Errors error) {
    ProduceResponseData data = new ProduceResponseData();
    addErrors(data, partitions, error);
    return frame(correlationId, ApiKeys.PRODUCE, version, data);
  }

  /** An OffsetCommit answer naming `error` for every partition the request commits, to a request that was not forwarded. */
  static ByteBuffer offsetCommitErrorResponse(ByteBuffer frame, int correlationId, short version, Errors error) {
    ByteBuffer b = frame.duplicate();
    RequestHeader h = RequestHeader.parse(b);
    OffsetCommitRequestData request = ((OffsetCommitRequest) AbstractRequest.parseRequest(ApiKeys.OFFSET_COMMIT, h.apiVersion(), new ByteBufferAccessor(b)).request).data();
    OffsetCommitResponseData data = new OffsetCommitResponseData();
    for (OffsetCommitRequestData.OffsetCommitRequestTopic t : request.topics()) {
      OffsetCommitResponseData.OffsetCommitResponseTopic topic = new OffsetCommitResponseData.OffsetCommitResponseTopic().setName(t.name());
      copyTopicId(t, topic);
      for (OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions()) {
        topic.partitions().add(new OffsetCommitResponseData.OffsetCommitResponsePartition().setPartitionIndex(p.partitionIndex()).setErrorCode(error.code()));
      }
      data.topics().add(topic);
    }
    return frame(correlationId, ApiKeys.OFFSET_COMMIT, version, data);
  }

  /** OffsetCommit v10 names topics by id (Kafka 4.1 on): the answer names them as the request did. */
  private static void copyTopicId(Object from, Object to) {
    try {
      Object id = from.getClass().getMethod("topicId").invoke(from);
      to.getClass().getMethod("setTopicId", Uuid.class).invoke(to, id);
    } catch (ReflectiveOperationException e) {
      // an older version without topic ids: the name is enough
    }
  }

  static void addErrors(ProduceResponseData data, List<TopicPartitionRef> partitions, Errors error) {
    for (TopicPartitionRef r : partitions) {
      ProduceResponseData.TopicProduceResponse topic = null;
      for (ProduceResponseData.TopicProduceResponse t : data.responses()) {
        if (sameTopic(t.name(), t.topicId(), r)) topic = t;
      }
      if (topic == null) {
        topic = new ProduceResponseData.TopicProduceResponse().setName(r.topic() == null ? "" : r.topic()).setTopicId(r.topicId() == null ? Uuid.ZERO_UUID : r.topicId());
        data.responses().add(topic);
      }
      topic.partitionResponses().add(new ProduceResponseData.PartitionProduceResponse()
          .setIndex(r.partition()).setErrorCode(error.code()).setErrorMessage(error.message())
          .setBaseOffset(-1).setLogAppendTimeMs(-1).setLogStartOffset(-1));
    }
  }

  static boolean sameTopic(String name, Uuid id, TopicPartitionRef r) {
    if (id != null && !Uuid.ZERO_UUID.equals(id) && r.topicId() != null && !Uuid.ZERO_UUID.equals(r.topicId())) return id.equals(r.topicId());
    return name != null && name.equals(r.topic());
  }

  /** The records a Fetch answer carries, per partition (topic-partition), from the batch headers (nothing decompressed). */
  static java.util.Map<String, Integer> fetchedRecords(AbstractResponse response, java.util.function.Function<TopicPartitionRef, String> named) {
    java.util.Map<String, Integer> out = new java.util.TreeMap<>();
    if (!(response.data() instanceof FetchResponseData f)) return out;
    for (FetchResponseData.FetchableTopicResponse t : f.responses()) {
      for (FetchResponseData.PartitionData p : t.partitions()) {
        int n = recordCount(p.records());
        if (n > 0) out.merge(named.apply(new TopicPartitionRef(t.topic(), t.topicId(), p.partitionIndex())) + "-" + p.partitionIndex(), n, Integer::sum);
      }
    }
    return out;
  }

  /**
   * The records in a partition's record set, from its batches' headers. Called by name: the record
   * classes moved to another package in Kafka 4.x (`record.internal`), and the proxy compiles
   * against the broker's own version.
   */
  private static int recordCount(Object records) {
    if (records == null) return 0;
    try {
      int n = 0;
      for (Object b : (Iterable<?>) records.getClass().getMethod("batches").invoke(records)) {
        Object c = method(b, "countOrNull").invoke(b);
        n += c != null ? (Integer) c : (int) ((Long) method(b, "lastOffset").invoke(b) - (Long) method(b, "baseOffset").invoke(b) + 1);
      }
      return n;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("record batches unreadable: " + e);
    }
  }

  /** A public method by name, found through the public interfaces (the batch classes themselves are not public). */
  private static java.lang.reflect.Method method(Object o, String name) throws NoSuchMethodException {
    for (Class<?> c = o.getClass(); c != null; c = c.getSuperclass()) {
      for (Class<?> i : c.getInterfaces()) {
        try {
          return i.getMethod(name);
        } catch (NoSuchMethodException ignored) {
          // next
        }
      }
    }
    return o.getClass().getMethod(name);
  }

  /** A response decoded from its frame, given the request's header. */
  static AbstractResponse response(ByteBuffer frame, RequestHeader request) {
    return AbstractResponse.parseResponse(frame.duplicate(), request);
  }

  /** Header and body, as the frame after the size prefix. */
  static ByteBuffer frame(int correlationId, ApiKeys api, short version, ApiMessage body) {
    short headerVersion = api.responseHeaderVersion(version);
    ByteBuffer header = MessageUtil.toByteBufferAccessor(new ResponseHeaderData().setCorrelationId(correlationId), headerVersion).buffer();
    ByteBuffer bodyBytes = MessageUtil.toByteBufferAccessor((Message) body, version).buffer();
    header.rewind();
    bodyBytes.rewind();
    ByteBuffer out = ByteBuffer.allocate(header.remaining() + bodyBytes.remaining());
    out.put(header).put(bodyBytes).flip();
    return out;
  }

  /**
   * Sets `error` on the selected partitions of a Produce or OffsetCommit response, or on the
   * top-level error of a group response; returns what it changed (partition -> original error).
   */
  static List<String> rewrite(AbstractResponse response, java.util.function.Predicate<TopicPartitionRef> selected, java.util.function.Function<TopicPartitionRef, String> named, Errors error) {
    List<String> changed = new ArrayList<>();
    ApiMessage data = response.data();
    if (data instanceof ProduceResponseData p) {
      for (ProduceResponseData.TopicProduceResponse t : p.responses()) {
        for (ProduceResponseData.PartitionProduceResponse r : t.partitionResponses()) {
          TopicPartitionRef ref = new TopicPartitionRef(t.name(), t.topicId(), r.index());
          if (!selected.test(ref)) continue;
          changed.add(named.apply(ref) + "-" + r.index() + ":" + Errors.forCode(r.errorCode()).name());
          r.setErrorCode(error.code()).setErrorMessage(error.message());
        }
      }
    } else if (data instanceof OffsetCommitResponseData o) {
      for (OffsetCommitResponseData.OffsetCommitResponseTopic t : o.topics()) {
        for (OffsetCommitResponseData.OffsetCommitResponsePartition r : t.partitions()) {
          TopicPartitionRef ref = new TopicPartitionRef(t.name(), null, r.partitionIndex());
          if (!selected.test(ref)) continue;
          changed.add(named.apply(ref) + "-" + r.partitionIndex() + ":" + Errors.forCode(r.errorCode()).name());
          r.setErrorCode(error.code());
        }
      }
    } else {
      try {
        short before = (short) data.getClass().getMethod("errorCode").invoke(data);
        data.getClass().getMethod("setErrorCode", short.class).invoke(data, error.code());
        changed.add("error:" + Errors.forCode(before).name());
      } catch (ReflectiveOperationException e) {
        throw new IllegalArgumentException(response.apiKey() + " responses carry no error code convoy can rewrite");
      }
    }
    return changed;
  }
}
