"""What the walk-through's chapters share: the runtime, the clock, the folder, and how they print."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from family_memory.app.runtime import Runtime
from family_memory.domain.clock import FixedClock


@dataclass
class WalkContext:
    runtime: Runtime
    clock: FixedClock
    home: Path
    family_id: str = "fam-rivera"
    state: dict[str, Any] = field(default_factory=dict)

    def family_path(self, relpath: str = "") -> Path:
        return self.home / "families" / self.family_id / relpath

    # --- output -------------------------------------------------------------
    def chapter(self, title: str) -> None:
        print(f"\n{'=' * 78}\n{title}\n{'=' * 78}")

    def step(self, text: str) -> None:
        print(f"\n-- {text}")

    def say(self, text: str) -> None:
        print(textwrap.fill(text, width=100, subsequent_indent="   ") if len(text) > 100 else text)

    def show(self, text: str, indent: str = "   | ") -> None:
        for line in text.rstrip("\n").split("\n"):
            print(f"{indent}{line}")

    def show_json(self, data: Any) -> None:
        self.show(json.dumps(data, indent=2, ensure_ascii=False, default=str))


Chapter = Callable[[WalkContext], None]
