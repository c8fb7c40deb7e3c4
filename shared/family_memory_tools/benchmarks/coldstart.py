"""``family-memory bench coldstart``: what a cold start costs each Lambda handler.

The layer is built as ``sam build`` builds it (``layers/family-memory/Makefile``), for
this machine's platform and the chosen Python instead of Lambda's arm64, into a scratch
folder: the project's runtime dependencies only, less ``layers/family-memory/EXCLUDE``.
Each handler then starts in a fresh interpreter that sees nothing but the standard
library, that folder and its own function folder (``python -S``, PYTHONPATH), with the
environment the template gives it and bytecode writing off, as on Lambda where ``/opt``
is read-only. Two timings per start, from the first line of the handler's module:

- import: loading ``functions/<name>/app.py`` and everything it imports;
- init: building the composition root (``runtime()``: settings, clients, adapters),
  which the handlers now do during Lambda's INIT phase.

Two builds are compared: bytecode compiled by the build host's Python (what pip left
in the layer before, unusable by another Python version, so every module is compiled
again at each start) or no bytecode when the two are the same version; and bytecode
compiled by the target Python (what the layer's Makefile now does). Medians of
``--runs`` starts each. Nothing is sent anywhere: the clients are made, not called.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from family_memory_tools.benchmarks.machine import machine_line

HANDLERS = ("api", "extract", "reconcile", "indexer", "compile", "dream_fanout", "dream_worker")

#: The environment a handler starts with: template.yaml's, with placeholder names (no call is made).
ENVIRONMENT = {
    "FAMILY_MEMORY_BACKEND": "aws",
    "MEMORY_BUCKET": "family-memory-bench",
    "MEMORY_TABLE": "family-memory-bench",
    "AWS_REGION": "us-east-1",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "bench",
    "AWS_SECRET_ACCESS_KEY": "bench",
    "AWS_LAMBDA_FUNCTION_NAME": "family-memory-bench",
    "POWERTOOLS_SERVICE_NAME": "family-memory",
    "POWERTOOLS_METRICS_NAMESPACE": "FamilyMemory",
    "OPENSEARCH_ENDPOINT": "https://bench0000000000000000.us-east-1.aoss.amazonaws.com",
    "OPENSEARCH_INDEX": "family-memories",
    "FAMILY_MEMORY_EMBEDDER": "bedrock",
    "RECONCILE_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/bench.fifo",
    "IDEMPOTENCY_TABLE": "family-memory-bench-idempotency",
    "DREAM_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/bench-dreams",
    "FORMATION_EXTRACTOR": "bedrock",
    "SEARCH_DEADLINE_SECONDS": "3",
    "PYTHONDONTWRITEBYTECODE": "1",  # /opt is read-only on Lambda: nothing compiled at a start is kept
}

_START = """
import json, time
t0 = time.perf_counter()
import importlib.util
spec = importlib.util.spec_from_file_location("app", {app!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
t1 = time.perf_counter()
module.runtime()
t2 = time.perf_counter()
print(json.dumps({{"import": t1 - t0, "init": t2 - t1}}))
"""


def repository() -> Path:
    """The checkout this package runs from (the bench needs functions/ and the layer's Makefile)."""
    for candidate in (Path.cwd(), *Path(__file__).resolve().parents):
        if (candidate / "functions").is_dir() and (candidate / "layers" / "family-memory" / "Makefile").is_file():
            return candidate
    raise SystemExit("bench coldstart runs from the repository (it needs functions/ and layers/family-memory/)")


def version_of(python: str) -> str:
    out = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"], capture_output=True)
    if out.returncode != 0:
        raise SystemExit(f"bench coldstart: {python} does not run: {out.stderr.decode()[-300:]}")
    return out.stdout.decode().strip()


def host_platforms() -> list[str]:
    machine = platform.machine()
    return [f"manylinux2014_{machine}", f"manylinux_2_28_{machine}", f"manylinux_2_34_{machine}"]


def build_layer(root: Path, into: Path, target: str) -> Path:
    """The layer's folder, built by its own Makefile for this platform and ``target``'s Python."""
    command = [
        "make",
        "-s",
        "-f",
        str(root / "layers" / "family-memory" / "Makefile"),
        "build-FamilyMemoryLayer",
        f"ARTIFACTS_DIR={into}",
        f"PYTHON={sys.executable}",
        f"LAMBDA_PLATFORMS={' '.join(host_platforms())}",
        f"LAMBDA_PYTHON={version_of(target)}",
        "LAYER_BYTECODE=none",
    ]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"bench coldstart: the layer build failed:\n{result.stdout[-1500:]}{result.stderr[-1500:]}")
    return into / "python"


def compiled(source: Path, into: Path, python: str) -> Path:
    """A copy of ``source`` with bytecode compiled by ``python`` (as the layer's Makefile does)."""
    shutil.copytree(source, into, symlinks=True)
    command = [python, "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "unchecked-hash", str(into)]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"bench coldstart: compileall with {python} failed: {result.stderr[-800:]}")
    return into


def start(python: str, layer: Path, root: Path, handler: str) -> dict[str, float]:
    app = root / "functions" / handler / "app.py"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **ENVIRONMENT}
    env["PYTHONPATH"] = os.pathsep.join([str(layer), str(app.parent)])
    result = subprocess.run(
        [python, "-S", "-c", _START.format(app=str(app))], env=env, capture_output=True, text=True, cwd=app.parent
    )
    if result.returncode != 0:
        raise SystemExit(f"bench coldstart: {handler} did not start:\n{result.stderr[-2000:]}")
    timings: dict[str, float] = json.loads(result.stdout.strip().splitlines()[-1])
    return timings


def size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def bench_coldstart(args: argparse.Namespace) -> int:
    root = repository()
    target = args.python or sys.executable
    target_version, host_version = version_of(target), version_of(sys.executable)
    handlers = [h for h in args.functions.split(",") if h] if args.functions else list(HANDLERS)
    unknown = sorted(set(handlers) - set(HANDLERS))
    if unknown:
        raise SystemExit(
            f"bench coldstart: no such function {', '.join(unknown)}; the functions: {', '.join(HANDLERS)}"
        )
    with tempfile.TemporaryDirectory(prefix="fm-coldstart-") as scratch:
        base = build_layer(root, Path(scratch) / "build", target)
        if host_version != target_version:
            stale_label = f"bytecode of Python {host_version} (the build host's; {target_version} ignores it)"
            stale = compiled(base, Path(scratch) / "stale", sys.executable)
        else:
            stale_label = "no bytecode (compiled at every start)"
            stale = base
        fresh = compiled(base, Path(scratch) / "target", target)
        print(f"bench coldstart: each handler started {args.runs} times in a fresh `python -S`; medians in ms")
        print(f"  {machine_line()}")
        built = f"layer {size_mb(base):.1f} MB of sources, for {platform.machine()}"
        print(f"  target Python {target_version} ({target}); {built}")
        print(f"  stale:  {stale_label}")
        print(f"  target: bytecode compiled by Python {target_version} (unchecked-hash)")
        columns = f"{'init':>7}{'total':>8}"
        print(f"  {'handler':<14}{'stale import':>13}{columns}   {'target import':>13}{columns}")
        totals: dict[str, list[float]] = {"stale": [], "target": []}
        for handler in handlers:
            row: dict[str, dict[str, float]] = {}
            for label, layer in (("stale", stale), ("target", fresh)):
                runs = [start(target, layer, root, handler) for _ in range(args.runs)]
                row[label] = {k: statistics.median(r[k] for r in runs) * 1000 for k in ("import", "init")}
                totals[label].append(row[label]["import"] + row[label]["init"])
            s, t = row["stale"], row["target"]
            print(
                f"  {handler:<14}{s['import']:>13.0f}{s['init']:>7.0f}{s['import'] + s['init']:>8.0f}   "
                f"{t['import']:>13.0f}{t['init']:>7.0f}{t['import'] + t['init']:>8.0f}"
            )
        stale_total, target_total = statistics.median(totals["stale"]), statistics.median(totals["target"])
        print(
            f"  median over handlers: stale {stale_total:.0f} ms, target {target_total:.0f} ms "
            f"({stale_total / target_total:.1f}x)"
        )
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "coldstart", help="import and init time of each Lambda handler with the layer's closure only"
    )
    parser.add_argument("--python", help="the Python the functions run on (default: this one); Lambda's is 3.13")
    parser.add_argument("--runs", type=int, default=5, help="starts per handler and build (medians are printed)")
    parser.add_argument("--functions", default="", help=f"comma-separated subset of {','.join(HANDLERS)}")
    parser.set_defaults(run=bench_coldstart)
