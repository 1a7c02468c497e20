#!/usr/bin/env bash
# llama.cpp's own model server (llama-server: parallel slots, continuous batching), built from the llama.cpp
# sources inside the llama-cpp-python release this install pinned, so the server and the in-process runtime are
# the same llama.cpp. It downloads that release's source from the package index (pip), compiles only the server
# for this CPU (about 8 minutes on 2 cores) and installs it as .venv/bin/llama-server. Nothing happens where it is
# already built for this version. Needs cmake and a C++ compiler (apt-get install cmake g++).
# DGRAG_VENV: another venv than .venv; LLAMA_CPP_PYTHON_VERSION: the release to take, where that venv has none (the
# cloud image's build); LLAMA_CMAKE_ARGS: more cmake flags (the image passes -DGGML_NATIVE=OFF, so that the server
# runs on CPUs other than the builder's).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${DGRAG_VENV:-.venv}
version=${LLAMA_CPP_PYTHON_VERSION:-$("$venv/bin/python" -c "import importlib.metadata as m; print(m.version('llama_cpp_python'))")}
target="$venv/bin/llama-server"
stamp="$target.version"
if [ -x "$target" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then
  echo "llama-server for llama-cpp-python $version is built: $target"
  exit 0
fi
for tool in cmake g++; do
  command -v "$tool" >/dev/null || { echo "build_llama_server: $tool is missing: apt-get install cmake g++" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$venv/bin/pip" download --quiet --no-deps --no-binary :all: "llama-cpp-python==$version" -d "$work"
tar xzf "$work"/llama_cpp_python-"$version".tar.gz -C "$work"
src="$work/llama_cpp_python-$version/vendor/llama.cpp"
cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF \
  -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON -DBUILD_SHARED_LIBS=OFF ${LLAMA_CMAKE_ARGS:-} > "$work/configure.log" \
  || { tail -20 "$work/configure.log" >&2; exit 1; }
echo "build_llama_server: compiling llama-server from llama-cpp-python $version (several minutes)"
cmake --build "$work/build" --target llama-server -j "$(nproc)" > "$work/build.log" \
  || { tail -30 "$work/build.log" >&2; exit 1; }
install -m 0755 "$work/build/bin/llama-server" "$target"
echo "$version" > "$stamp"
echo "llama-server built: $target"
