"""Running a Lambda handler in a test: its module loaded from ``functions/<name>/app.py``
(a fresh module each time, as a new container would), a context shaped like Lambda's,
and the recorded events in ``tests/events``."""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EVENTS = ROOT / "tests" / "events"
REGION = "us-east-1"
ACCOUNT = "123456789012"


@dataclass
class LambdaContext:
    function_name: str = "family-memory-test"
    memory_limit_in_mb: int = 512
    aws_request_id: str = "c6af9ac6-7b61-11e6-9a41-93e812345678"

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{self.function_name}"

    def get_remaining_time_in_millis(self) -> int:
        return 300_000


def load_handler(function: str) -> ModuleType:
    """``functions/<function>/app.py`` as a new module (its module-level state starts afresh)."""
    spec = importlib.util.spec_from_file_location(f"lambda_{function}", ROOT / "functions" / function / "app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def event(name: str) -> dict[str, Any]:
    """The recorded event ``tests/events/<name>``."""
    loaded: dict[str, Any] = json.loads((EVENTS / name).read_text())
    return loaded
