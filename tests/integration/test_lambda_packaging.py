"""What the Lambda layer carries is enough for every function.

The layer holds the project's runtime dependencies only (no dev tools, no
local extra). Each handler is imported in a fresh interpreter where any
third-party module outside that dependency closure is made unimportable, with
the environment the template gives the functions (tracing on), so a missing
runtime dependency fails here instead of at the first cold start.
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
HANDLERS = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "functions").glob("*/app.py"))


def _normalise(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def runtime_closure(project: str = "family-memory") -> set[str]:
    """Distributions the project needs at run time: its requirements without extras,
    plus the extras it asks for by name (``pkg[tracer]``), recursively."""
    wanted: list[tuple[str, frozenset[str]]] = [(project, frozenset())]
    visited: set[tuple[str, frozenset[str]]] = set()
    seen: set[str] = set()
    while wanted:
        name, extras = wanted.pop()
        key = _normalise(name)
        if (key, extras) in visited:
            continue
        visited.add((key, extras))
        seen.add(key)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        for line in requires:
            requirement = Requirement(line)
            environments = [{"extra": extra} for extra in extras] or [{"extra": ""}]
            if requirement.marker is None or any(requirement.marker.evaluate(env) for env in environments):
                wanted.append((requirement.name, frozenset(requirement.extras)))
    return seen


def test_the_runtime_closure_includes_the_tracers_sdk() -> None:
    closure = runtime_closure()
    assert {"aws-lambda-powertools", "boto3", "pydantic", "aws-xray-sdk"} <= closure
    assert not {"moto", "pytest", "onnxruntime", "numpy"} & closure


def left_out() -> set[str]:
    """What the layer does not ship although a dependency declares it (layers/family-memory/EXCLUDE)."""
    text = (ROOT / "layers" / "family-memory" / "EXCLUDE").read_text()
    return {_normalise(line.split("#", 1)[0].strip()) for line in text.splitlines() if line.split("#", 1)[0].strip()}


def test_the_layer_leaves_out_grpc_and_protobuf_that_nothing_imports() -> None:
    assert {"grpcio", "protobuf", "opensearch-protobufs"} <= left_out() <= runtime_closure()


def test_every_handler_imports_with_the_layers_dependencies_only() -> None:
    assert len(HANDLERS) >= 7 and "functions/api/app.py" in HANDLERS
    shipped = runtime_closure() - left_out()
    allowed = sorted(
        module
        for module, dists in metadata.packages_distributions().items()
        if any(_normalise(d) in shipped for d in dists) and not any(_normalise(d) in left_out() for d in dists)
    )
    script = f"""
import importlib.abc, importlib.util, sys
ALLOWED = set({json.dumps(allowed)}) | set(sys.stdlib_module_names) | {{"family_memory", "_distutils_hack"}}
class LayerOnly(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        top = name.split(".")[0]
        if top not in ALLOWED and not top.startswith("_"):
            raise ModuleNotFoundError(f"{{name}} is not in the Lambda layer", name=name)
        return None
sys.meta_path.insert(0, LayerOnly())
for number, handler in enumerate({HANDLERS!r}):
    spec = importlib.util.spec_from_file_location(f"app{{number}}", handler)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert callable(module.handler), handler
"""
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(ROOT / "shared"),
        "AWS_REGION": "us-east-1",
        "AWS_DEFAULT_REGION": "us-east-1",
        "FAMILY_MEMORY_BACKEND": "aws",
        "MEMORY_BUCKET": "bucket",
        "MEMORY_TABLE": "table",
        "POWERTOOLS_SERVICE_NAME": "family-memory",
        "AWS_LAMBDA_FUNCTION_NAME": "family-memory-test",
    }
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]


def test_in_lambda_each_handler_builds_its_runtime_during_init_not_in_the_first_event(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import family_memory.app.bootstrap as bootstrap
    from family_memory.app.settings import load_settings
    from lambda_harness import load_handler

    built: list[str] = []
    every_need = load_settings({}, dream_queue_url="q", reconcile_queue_url="q", idempotency_table="t")
    configured = SimpleNamespace(settings=every_need.model_copy(update={"opensearch_endpoint": "https://search"}))

    def build() -> SimpleNamespace:
        built.append("runtime")
        return configured

    monkeypatch.setattr(bootstrap, "runtime", build)
    names = sorted(Path(h).parent.name for h in HANDLERS)
    for name in names:
        load_handler(name)  # outside Lambda (no AWS_LAMBDA_INITIALIZATION_TYPE): nothing is built at import
    assert built == []
    monkeypatch.setenv("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand")
    for name in names:
        load_handler(name)
    assert built == ["runtime"] * len(names)


@pytest.mark.parametrize(
    ("function", "variable"),
    [("indexer", "OPENSEARCH_ENDPOINT"), ("dream_fanout", "DREAM_QUEUE_URL"), ("extract", "RECONCILE_QUEUE_URL")],
)
def test_a_function_without_a_variable_it_needs_fails_init_naming_it(
    monkeypatch: pytest.MonkeyPatch, function: str, variable: str
) -> None:
    import family_memory.app.bootstrap as bootstrap
    from family_memory.app.settings import load_settings
    from family_memory.domain.errors import ConfigurationError
    from lambda_harness import load_handler

    monkeypatch.setattr(bootstrap, "runtime", lambda: SimpleNamespace(settings=load_settings({})))
    monkeypatch.setenv("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand")
    with pytest.raises(ConfigurationError, match=f"the {function} function needs {variable}, which is not set"):
        load_handler(function)


def test_a_bad_variable_fails_init_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import family_memory.app.bootstrap as bootstrap
    from family_memory.domain.errors import ConfigurationError
    from lambda_harness import load_handler

    bootstrap.runtime.cache_clear()
    monkeypatch.setenv("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand")
    monkeypatch.setenv("LEASE_WAIT_SECONDS", "forever")
    try:
        with pytest.raises(ConfigurationError, match="LEASE_WAIT_SECONDS: Input should be a valid number"):
            load_handler("compile")
    finally:
        bootstrap.runtime.cache_clear()


def test_what_each_function_needs_is_in_its_template_environment() -> None:
    from family_memory.app.settings import Settings
    from iam_audit import FUNCTIONS
    from iam_policy import Stack
    from lambda_harness import load_handler

    stack = Stack({})
    assert set(FUNCTIONS) == {Path(h).parent.name for h in HANDLERS}
    for function, logical in FUNCTIONS.items():
        declared = load_handler(function).runtime
        assert declared.function == function
        environment = stack.environment(logical)
        for field in ("bucket", "table", *declared.needs):
            assert environment.get(Settings.variable(field)), (function, field)
