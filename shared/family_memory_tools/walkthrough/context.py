"""What the walk-through's chapters share: the runtime, the clock, the folder, and how they print."""

from __future__ import annotations

import json
import logging
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from family_memory.app.runtime import Runtime
from family_memory.domain.clock import FixedClock
from family_memory.domain.family import FamilySettings, Member, MemberRole

#: Lines of a file or block shown before the rest is only counted (``--verbose`` shows all).
SHOWN_LINES = 3


@dataclass
class WalkContext:
    runtime: Runtime
    clock: FixedClock
    home: Path
    family_id: str = "fam-rivera"
    state: dict[str, Any] = field(default_factory=dict)
    #: Show everything (every candidate's verdict, every file); by default a page's worth.
    verbose: bool = False

    def family_path(self, relpath: str = "") -> Path:
        return self.home / "families" / self.family_id / relpath

    # --- output -------------------------------------------------------------
    def chapter(self, title: str) -> None:
        print(f"\n{'=' * 78}\n{title}\n{'=' * 78}" if self.verbose else f"\n== {title}")

    def step(self, text: str, *, verbose_only: bool = False) -> bool:
        """Start a step; a ``verbose_only`` one is skipped by default (the caller checks the answer)."""
        if verbose_only and not self.verbose:
            return False
        print(f"\n-- {text}" if self.verbose else f"-- {text}")
        return True

    def place(self, relpath: str) -> str:
        """Where a family file is: its whole path with ``--verbose``, else from the family's folder."""
        return str(self.family_path(relpath)) if self.verbose else f"families/{self.family_id}/{relpath}"

    def detail(self, text: str) -> None:
        """``say``, with ``--verbose`` only: what explains a step further."""
        if self.verbose:
            self.say(text)

    def say(self, text: str) -> None:
        wrapped = textwrap.fill(
            text, width=100, subsequent_indent="   ", break_long_words=False, break_on_hyphens=False
        )
        print(wrapped if len(text) > 100 else text)

    def show(self, text: str, indent: str = "   | ", *, limit: int = SHOWN_LINES) -> None:
        """``text`` indented; past ``limit`` lines only a count of the rest, unless ``verbose``."""
        lines = text.rstrip("\n").split("\n")
        if limit == 0 and not self.verbose:
            return  # the caller says what --verbose shows here
        cut = len(lines) if self.verbose or len(lines) <= limit + 1 else limit
        for line in lines[:cut]:
            print(f"{indent}{line}")
        if cut < len(lines):
            print(f"{indent}... {len(lines) - cut} more lines (--verbose shows them)")

    def show_json(self, data: Any) -> None:
        self.show(json.dumps(data, indent=2, ensure_ascii=False, default=str))


Chapter = Callable[[WalkContext], None]


@contextmanager
def quiet_log(name: str) -> Iterator[None]:
    """Hold back the log lines of ``name`` below ERROR (the walk-through says what they would)."""
    logger = logging.getLogger(name)
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def the_riveras(family_id: str) -> FamilySettings:
    """The invented family's settings: its time zone and members (Lucía, Marco, and Maya, a child)."""
    return FamilySettings(
        family_id=family_id,
        time_zone="America/Los_Angeles",
        members=[
            Member(id="lucia", name="Lucía Rivera", address_as="Lu"),
            Member(id="marco", name="Marco Rivera"),
            Member(id="maya", name="Maya Rivera", role=MemberRole.CHILD),
        ],
    )
