# A Ray node for `dgrag sim run --backend ray` on a cluster of containers (docker/ray-cluster.yaml,
# scripts/ray_cluster.sh): the edge image (dgrag, llama.cpp, the bundled models) plus Ray at the version
# constraints.txt pins and the lab (dgrag-sim), so the head, the workers and the driver run the same code.
# Build from the repository root, after the edge image:
#   docker build -f docker/ray.Dockerfile --build-arg EDGE_IMAGE=dgrag-edge:smoke -t dgrag-ray .
ARG EDGE_IMAGE=dgrag-edge:latest
FROM ${EDGE_IMAGE}
USER root
COPY constraints.txt /tmp/constraints.txt
RUN pip install --no-cache-dir -c /tmp/constraints.txt "ray==2.60.0" && rm /tmp/constraints.txt
# the lab (simulation and benchmarks) is a distribution of its own: the edge image ships the product alone
COPY simulation/ /src/simulation/
COPY benchmarks/ /src/benchmarks/
COPY lab/ /src/lab/
RUN pip install --no-cache-dir --no-deps /src/lab
# the edge image binds its API to loopback; a simulation's hosts bind their node's address themselves
ENV DGRAG__SERVER__HOST=0.0.0.0 DGRAG__SERVER__INSECURE=true
USER 10001:10001
# the edge image checks an edge API that a Ray node does not serve
HEALTHCHECK NONE
ENTRYPOINT []
CMD ["ray", "--help"]
