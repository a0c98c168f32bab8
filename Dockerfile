# convoy's image, for the Helm chart (deploy/helm/convoy, docs/kubernetes.md): the runner and the
# agents run it. The build stage runs the README's set-up, ./convoy setup, as root, so the image
# and a developer's machine install the same things the same way: npm packages with the
# librdkafka client (bin/bootstrap.sh, on ./convoy's first start), the Debian packages convoy
# installs itself, the Kafka jars, convoy's Java client compiled, and Toxiproxy (a private proxy
# in front of an external RabbitMQ's client traffic). The runtime stage keeps the checkout and
# convoy's cache, with a JRE and the librdkafka client's shared libraries, and no compilers.
# Built with: docker build -t convoy:0.1.0 .   (never built on convoy's own CI machines: no
# container engine runs there; hadolint checks this file in the tests)

FROM golang:1.26-bookworm AS go

FROM node:26-bookworm AS build
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
COPY --from=go /usr/local/go /usr/local/go
ENV PATH=/usr/local/go/bin:$PATH \
    CONVOY_CACHE=/opt/convoy-cache
WORKDIR /opt/convoy
COPY . .
# ./convoy setup installs the Debian packages it needs (a JDK and Maven among them) as root.
RUN ./convoy setup --broker kafka rabbitmq \
    && rm -rf /root/go /root/.cache/go-build /root/.npm

FROM node:26-bookworm-slim
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
# The librdkafka client's shared libraries and a JRE for the Java client. Debian's own versions
# of the base image's release; their pins would only go stale.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends openjdk-17-jre-headless libssl3 libsasl2-2 zlib1g libzstd1 liblz4-1 libcurl4 ca-certificates \
    && rm -rf /var/lib/apt/lists/*
ENV CONVOY_CACHE=/opt/convoy-cache \
    NODE_ENV=production
WORKDIR /opt/convoy
COPY --from=build --chown=1000:1000 /opt/convoy /opt/convoy
COPY --from=build --chown=1000:1000 /opt/convoy-cache /opt/convoy-cache
# The node image's own user; the chart's pods run as it (podSecurity.runAsUser).
USER 1000:1000
ENTRYPOINT ["/opt/convoy/convoy"]
CMD ["--help"]
