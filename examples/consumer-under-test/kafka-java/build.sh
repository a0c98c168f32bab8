#!/bin/sh
# Compiles the consumer and convoy's Java reporter against the kafka-clients jars convoy keeps
# for its own Java programs (KAFKA_JAVA_CLASSPATH), into the run's service folder.
set -e
mkdir -p "$CONVOY_SERVICE_DIR/classes"
javac -nowarn -cp "$KAFKA_JAVA_CLASSPATH" -d "$CONVOY_SERVICE_DIR/classes" OrdersConsumer.java ../../../reporters/java/dev/convoy/ConvoyReporter.java
