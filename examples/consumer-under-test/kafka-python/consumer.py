"""A team's Python consumer (kafka-python), under test by convoy without convoy's reporter
library: it writes the report protocol itself (docs/consumer-under-test.md), one JSON object
per line, to the file named in CONVOY_REPORT_FILE or the socket named in CONVOY_REPORT_SOCKET.

Each poll's records are handled partition by partition, in order, and committed once handled.
Its connection comes from KAFKA_BOOTSTRAP_SERVERS, KAFKA_TOPIC and KAFKA_GROUP_ID.
"""
import json
import os
import signal
import socket
import sys
import time

from kafka import KafkaConsumer, ConsumerRebalanceListener

env = os.environ


def open_report():
    """A function that writes one report line whole."""
    if env.get("CONVOY_REPORT_SOCKET"):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(env["CONVOY_REPORT_SOCKET"])
        return lambda line: s.sendall(line.encode())
    if env.get("CONVOY_REPORT_FILE"):
        fd = os.open(env["CONVOY_REPORT_FILE"], os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        return lambda line: os.write(fd, line.encode())
    return lambda line: None


write = open_report()


def report(**fields):
    fields.setdefault("at", time.time_ns() // 1000)
    write(json.dumps(fields, separators=(",", ":")) + "\n")


report(type="hello", protocol=1, process=env.get("CONVOY_PROCESS"))


class Joined(ConsumerRebalanceListener):
    said = False

    def on_partitions_revoked(self, revoked):
        pass

    def on_partitions_assigned(self, assigned):
        if not self.said:
            self.said = True
            report(type="ready")


consumer = KafkaConsumer(
    bootstrap_servers=env["KAFKA_BOOTSTRAP_SERVERS"].split(","),
    group_id=env["KAFKA_GROUP_ID"],
    client_id="orders-" + env.get("CONVOY_PROCESS", "local"),
    auto_offset_reset="earliest",
    enable_auto_commit=False,
    session_timeout_ms=int(env.get("KAFKA_SESSION_TIMEOUT_MS", "30000")),
    heartbeat_interval_ms=int(env.get("KAFKA_HEARTBEAT_INTERVAL_MS", "3000")),
)
consumer.subscribe([env["KAFKA_TOPIC"]], listener=Joined())

running = True


def stop(signum, frame):
    global running
    running = False


signal.signal(signal.SIGTERM, stop)

versions = {}
while running:
    batches = consumer.poll(timeout_ms=100)
    for tp, records in batches.items():
        for r in records:
            headers = {k: v.decode() for k, v in (r.headers or [])}
            report(type="start", headers=headers, lane=str(tp.partition), offset=r.offset)
            order = json.loads(r.value)
            time.sleep(0.001)  # the order's database write
            versions[order["orderId"]] = order["version"]
            report(type="end", headers=headers, outcome="ok")
    if batches:
        consumer.commit()
consumer.close()
sys.exit(0)
