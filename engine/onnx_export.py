"""ONNX export: the embedding model as an ONNX graph for onnxruntime, made offline from its local folder.

    python -m repobot.engine.onnx_export [--plain]   # writes models/<embedding model>.int8.onnx (.onnx)

The graph holds the transformer, mean pooling and normalisation, so onnxruntime
returns sentence vectors directly (cosine 1.0 to the torch model). The int8
variant, the default, also quantizes the weights of the matrix products per
channel (dynamic quantization; per-tensor weights lost too much, cosine 0.89 on
average). ``make install`` exports it once; at run time ``onnx_model`` finds
the file, or exports it into the user's models folder if it is missing.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sys
import tempfile
import warnings
from pathlib import Path

from .config import bundled_models_dir, force_offline, user_models_dir
from .errors import ModelError, run_tool

def onnx_file_name(model_dir: Path, int8: bool = False) -> str:
    """The file name of a model folder's ONNX graph.

    >>> onnx_file_name(Path("/x/all-MiniLM-L6-v2/model")), onnx_file_name(Path("/x/m"), int8=True)
    ('all-MiniLM-L6-v2.onnx', 'm.int8.onnx')
    """
    name = model_dir.name if model_dir.name != "model" else model_dir.parent.name
    return name + (".int8.onnx" if int8 else ".onnx")


def onnx_model(model_dir: Path, int8: bool = False) -> Path:
    """The ONNX file of ``model_dir``: beside the code (installed) or in the user's models folder (exported now)."""
    name = onnx_file_name(model_dir, int8)
    for folder in (bundled_models_dir(), user_models_dir()):
        if (folder / name).is_file():
            return folder / name
    return export_onnx(model_dir, user_models_dir() / name, int8)


def export_onnx(model_dir: Path, target: Path, int8: bool = False) -> Path:
    """Export ``model_dir`` to ONNX (quantized to int8 if asked) and move it to ``target`` atomically."""
    force_offline()
    try:
        import torch
        from onnxruntime.quantization import QuantType, quantize_dynamic
        from transformers import AutoModel
    except ImportError as err:
        raise ModelError(
            f"Cannot export the int8 embedding model ({err.name} is missing): run `make install`, "
            "or set REPOBOT_EMBEDDER=torch."
        ) from err

    class Pooled(torch.nn.Module):
        """The transformer followed by mean pooling over real tokens and L2 normalisation."""

        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            hidden = self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            weights = attention_mask.unsqueeze(-1).to(hidden.dtype)
            mean = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, dim=-1)

    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".export-", dir=target.parent))
    try:
        model = Pooled(AutoModel.from_pretrained(str(model_dir), local_files_only=True).eval())
        example = tuple(torch.ones(2, 8, dtype=torch.long) for _ in range(3))
        names = ["input_ids", "attention_mask", "token_type_ids"]
        with torch.no_grad(), _quiet():
            torch.onnx.export(
                model, example, str(work / "fp32.onnx"), input_names=names, output_names=["embedding"],
                dynamic_axes={**{n: {0: "batch", 1: "pieces"} for n in names}, "embedding": {0: "batch"}},
                opset_version=17, dynamo=False,
            )
            if int8:
                quantize_dynamic(
                    str(work / "fp32.onnx"), str(work / "int8.onnx"), weight_type=QuantType.QInt8,
                    per_channel=True, op_types_to_quantize=["MatMul"],
                )
        os.replace(work / ("int8.onnx" if int8 else "fp32.onnx"), target)
    except Exception as err:
        raise ModelError(
            f"Exporting the embedding model in {model_dir} to ONNX failed ({type(err).__name__}: "
            f"{str(err).splitlines()[0][:120] if str(err) else 'no detail'}). Set REPOBOT_EMBEDDER=torch to use the plain model."
        ) from err
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target


@contextlib.contextmanager
def _quiet():
    """Silence the exporters' deprecation and advice messages (logging and warnings)."""
    level = logging.root.level
    logging.root.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logging.root.setLevel(level)


def main(argv: list[str] | None = None) -> int:
    from .embed import default_embedding_model_dir

    int8 = "--plain" not in (sys.argv[1:] if argv is None else argv)

    def export() -> str:
        model_dir = default_embedding_model_dir()
        target = bundled_models_dir() / onnx_file_name(model_dir, int8)
        if not target.is_file():
            export_onnx(model_dir, target, int8)
        return f"ONNX embedding model: {target} ({target.stat().st_size / 1e6:.1f} MB)"

    return run_tool(export)


if __name__ == "__main__":
    sys.exit(main())
