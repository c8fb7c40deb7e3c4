"""What template.yaml grants each function, and a small IAM evaluator to ask it.

The IAM audit (``integration/test_iam_audit.py``) runs the real handlers under moto,
turns every AWS call they make into the authorisation requests AWS would evaluate
(``requests_for``), and asks this module whether the function's own statements in
template.yaml allow each one. moto enforces no IAM, so without this a missing grant
(an ``AccessDenied`` in Lambda) passes every other test.

The template is read with its intrinsic functions resolved against the resources a
test creates (``Stack``): ``!Ref``, ``!GetAtt``, ``!Sub``, ``!If`` with its condition
evaluated, ``!Equals``. The evaluator covers what this template uses and refuses the
rest loudly (``UnsupportedPolicyError``) rather than guessing: Allow and Deny,
wildcard actions and resources (``*`` and ``?``, actions case-insensitive), and the
condition operators ``StringEquals``/``StringLike``/``ArnEquals``/``ArnLike``, each also
with ``ForAllValues:``/``ForAnyValue:``. As in IAM, a plain operator on a key the request
does not carry fails, and ``ForAllValues:`` on a missing key holds (so a LeadingKeys
condition does not confine a Scan).

OpenSearch Serverless is authorised twice: ``aoss:APIAccessAll`` on the collection in
IAM, then the collection's data access policy, which names principals (the functions'
roles) and index permissions. ``DataAccessRule`` reads the latter.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import yaml

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "template.yaml"
ACCOUNT = "123456789012"
REGION = "us-east-1"
PARTITION = "aws"


#: What ``!Ref AWS::NoValue`` resolves to: the item holding it is dropped.
NO_VALUE = object()


class UnsupportedPolicyError(AssertionError):
    """The template uses a policy feature this evaluator does not model."""


class UnmappedCallError(AssertionError):
    """An AWS call the audit does not know how to authorise: add it to ``requests_for``."""


# --- reading the template ----------------------------------------------------------


@dataclass(frozen=True)
class Intrinsic:
    """A CloudFormation short-form function (``!Ref X``) as read from YAML."""

    name: str
    value: Any


class _TemplateLoader(yaml.SafeLoader):
    pass


def _intrinsic(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Intrinsic:
    if isinstance(node, yaml.ScalarNode):
        return Intrinsic(suffix, loader.construct_scalar(node))
    if isinstance(node, yaml.SequenceNode):
        return Intrinsic(suffix, loader.construct_sequence(node, deep=True))
    return Intrinsic(suffix, loader.construct_mapping(node, deep=True))  # type: ignore[arg-type]


_TemplateLoader.add_multi_constructor("!", _intrinsic)


@lru_cache(maxsize=1)
def raw_template() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.load(TEMPLATE.read_text(), Loader=_TemplateLoader)  # noqa: S506 - SafeLoader subclass
    return loaded


@dataclass
class Stack:
    """The physical names a test gave the template's resources, and its parameter values.

    ``names`` maps a logical id to what ``!Ref`` gives (a bucket or table name, a queue
    URL); ARNs and other attributes are derived from it by resource type."""

    names: dict[str, str]
    parameters: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.template = raw_template()
        declared = self.template.get("Parameters", {})
        unknown = set(self.parameters) - set(declared)
        if unknown:
            raise UnsupportedPolicyError(f"the template has no parameters {sorted(unknown)}")
        self.values = {name: str(spec.get("Default", "")) for name, spec in declared.items()}
        self.values.update(self.parameters)
        self.values.update({"AWS::Region": REGION, "AWS::AccountId": ACCOUNT, "AWS::Partition": PARTITION})
        self._conditions: dict[str, bool] = {}

    # --- intrinsic functions ---------------------------------------------------------

    def resolve(self, value: Any) -> Any:
        """``value`` with its intrinsic functions evaluated; ``!Ref AWS::NoValue`` removes
        the list item or mapping key that holds it, as CloudFormation does."""
        if isinstance(value, Intrinsic):
            return self._function(value)
        if isinstance(value, dict):
            resolved = {k: self.resolve(v) for k, v in value.items()}
            return {k: v for k, v in resolved.items() if v is not NO_VALUE}
        if isinstance(value, list):
            return [v for v in (self.resolve(v) for v in value) if v is not NO_VALUE]
        return value

    def _function(self, fn: Intrinsic) -> Any:
        if fn.name == "Ref":
            return self.ref(fn.value)
        if fn.name == "GetAtt":
            target = fn.value if isinstance(fn.value, str) else ".".join(fn.value)
            logical, _, attribute = target.partition(".")
            return self.attribute(logical, attribute)
        if fn.name == "Sub":
            text, variables = (fn.value, {}) if isinstance(fn.value, str) else fn.value
            return self.substitute(text, self.resolve(variables))
        if fn.name == "If":
            condition, when_true, when_false = fn.value
            return self.resolve(when_true if self.condition(condition) else when_false)
        if fn.name == "Equals":
            left, right = self.resolve(fn.value)
            return str(left) == str(right)
        if fn.name == "And":
            return all(self.resolve(fn.value))
        if fn.name == "Or":
            return any(self.resolve(fn.value))
        if fn.name == "Select":
            index, items = self.resolve(fn.value)
            return items[int(index)]
        if fn.name == "Split":
            separator, text = self.resolve(fn.value)
            return str(text).split(separator)
        if fn.name == "Join":
            separator, items = self.resolve(fn.value)
            return separator.join(str(i) for i in items)
        if fn.name == "Not":
            return not self.resolve(fn.value)[0]
        if fn.name == "Condition":
            return self.condition(fn.value)
        raise UnsupportedPolicyError(f"intrinsic !{fn.name} is not modelled")

    def condition(self, name: str) -> bool:
        if name not in self._conditions:
            self._conditions[name] = bool(self.resolve(self.template["Conditions"][name]))
        return self._conditions[name]

    def ref(self, name: str) -> Any:
        if name == "AWS::NoValue":
            return NO_VALUE
        if name in self.values:
            return self.values[name]
        if name in self.names:
            return self.names[name]
        return f"unresolved-ref:{name}"

    def attribute(self, logical: str, attribute: str) -> str:
        kind = self.resource_type(logical)
        name = self.names.get(logical)
        if attribute == "Arn" and kind is None and logical.endswith("Role"):
            # The role SAM creates for a function: {Function}Role.
            return f"arn:{PARTITION}:iam::{ACCOUNT}:role/{logical}"
        if name is not None and attribute == "Arn":
            if kind == "AWS::S3::Bucket":
                return f"arn:{PARTITION}:s3:::{name}"
            if kind == "AWS::DynamoDB::Table":
                return f"arn:{PARTITION}:dynamodb:{REGION}:{ACCOUNT}:table/{name}"
            if kind == "AWS::SQS::Queue":
                return queue_arn(name)
            if kind == "AWS::OpenSearchServerless::Collection":
                return f"arn:{PARTITION}:aoss:{REGION}:{ACCOUNT}:collection/{name}"
        if name is not None and kind == "AWS::OpenSearchServerless::Collection" and attribute == "CollectionEndpoint":
            return f"https://{name}.{REGION}.aoss.amazonaws.com"
        if name is not None and kind == "AWS::SQS::Queue" and attribute == "QueueName":
            return name.rsplit("/", 1)[-1]
        return f"unresolved-attribute:{logical}.{attribute}"

    def substitute(self, text: str, variables: Mapping[str, Any]) -> str:
        def one(match: re.Match[str]) -> str:
            name = match.group(1)
            if name in variables:
                return str(variables[name])
            if "." in name and name.split(".", 1)[0] not in self.values:
                logical, attribute = name.split(".", 1)
                return self.attribute(logical, attribute)
            return str(self.ref(name))

        return re.sub(r"\$\{([^}!]+)\}", one, text)

    # --- what a function gets --------------------------------------------------------

    def resource_type(self, logical: str) -> str | None:
        resource = self.template["Resources"].get(logical)
        return None if resource is None else str(resource["Type"])

    def resource(self, logical: str) -> dict[str, Any]:
        resource: dict[str, Any] = self.template["Resources"][logical]
        return resource

    def statements(self, function: str) -> list[Statement]:
        """The function's inline policy statements (SAM ``Policies``), resolved."""
        policies = self.resource(function)["Properties"].get("Policies", [])
        out: list[Statement] = []
        for p, policy in enumerate(policies if isinstance(policies, list) else [policies]):
            if not isinstance(policy, dict) or "Statement" not in policy:
                raise UnsupportedPolicyError(f"{function}: policy {policy!r} is not an inline statement list")
            for s, raw in enumerate(self.resolve(policy["Statement"])):
                out.append(Statement.parse(raw, default_sid=f"{function}.{p}.{s}"))
        return out

    def environment(self, function: str) -> dict[str, str]:
        """What Lambda sets in the function's environment: Globals, then the function's own."""
        merged: dict[str, Any] = dict(self.template["Globals"]["Function"]["Environment"]["Variables"])
        own = self.resource(function)["Properties"].get("Environment", {}).get("Variables", {})
        merged.update(own)
        return {name: str(value) for name, value in self.resolve(merged).items()}

    def data_access_rules(self) -> list[DataAccessRule]:
        """The rules of every OpenSearch Serverless data access policy this stack creates."""
        rules: list[DataAccessRule] = []
        for logical, resource in self.template["Resources"].items():
            if resource["Type"] != "AWS::OpenSearchServerless::AccessPolicy":
                continue
            if "Condition" in resource and not self.condition(resource["Condition"]):
                continue
            for entry in json.loads(self.resolve(resource["Properties"]["Policy"])):
                for rule in entry["Rules"]:
                    rules.append(
                        DataAccessRule(
                            source=f"{logical}/{entry.get('Description', '')}",
                            resource_type=rule["ResourceType"],
                            resources=tuple(rule["Resource"]),
                            permissions=tuple(rule["Permission"]),
                            principals=tuple(entry["Principal"]),
                        )
                    )
        return rules


def queue_arn(url: str) -> str:
    """``https://sqs.{region}.amazonaws.com/{account}/{name}`` -> the queue's ARN."""
    parts = urlparse(url).path.strip("/").split("/")
    if len(parts) != 2:
        raise UnmappedCallError(f"not a queue URL: {url}")
    return f"arn:{PARTITION}:sqs:{REGION}:{parts[0]}:{parts[1]}"


# --- the evaluator -----------------------------------------------------------------


def _glob(pattern: str, *, ignore_case: bool = False) -> re.Pattern[str]:
    """IAM wildcards: ``*`` any run of characters (``/`` included), ``?`` one character."""
    body = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.compile(f"^{body}$", re.IGNORECASE if ignore_case else 0)


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else [value]


_OPERATORS: dict[str, Callable[[str, str], bool]] = {
    "StringEquals": lambda have, want: have == want,
    "StringLike": lambda have, want: bool(_glob(want).match(have)),
    "ArnEquals": lambda have, want: have == want,
    "ArnLike": lambda have, want: bool(_glob(want).match(have)),
}


@dataclass(frozen=True)
class Request:
    """One authorisation AWS evaluates: an action on a resource, with condition keys."""

    action: str
    resource: str
    context: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def describe(self) -> str:
        keys = ", ".join(f"{k}={list(v)}" for k, v in sorted(self.context.items()))
        return f"{self.action} on {self.resource}" + (f" ({keys})" if keys else "")


def request(action: str, resource: str, context: Mapping[str, str | Sequence[str]] | None = None) -> Request:
    return Request(action, resource, {k: tuple(_as_list(v)) for k, v in (context or {}).items()})


@dataclass(frozen=True)
class Statement:
    sid: str
    effect: str
    actions: tuple[str, ...]
    resources: tuple[str, ...]
    conditions: tuple[tuple[str, str, tuple[str, ...]], ...]

    @classmethod
    def parse(cls, raw: Mapping[str, Any], default_sid: str) -> Statement:
        unsupported = set(raw) - {"Sid", "Effect", "Action", "Resource", "Condition"}
        if unsupported:
            raise UnsupportedPolicyError(f"statement {raw.get('Sid', default_sid)}: {sorted(unsupported)} not modelled")
        conditions = []
        for operator, keys in raw.get("Condition", {}).items():
            base = operator.split(":", 1)[-1]
            if base not in _OPERATORS or operator.split(":", 1)[0] not in (base, "ForAllValues", "ForAnyValue"):
                raise UnsupportedPolicyError(f"condition operator {operator} is not modelled")
            for key, values in keys.items():
                conditions.append((operator, key, tuple(str(v) for v in _as_list(values))))
        return cls(
            sid=str(raw.get("Sid", default_sid)),
            effect=str(raw["Effect"]),
            actions=tuple(_as_list(raw["Action"])),
            resources=tuple(str(r) for r in _as_list(raw["Resource"])),
            conditions=tuple(conditions),
        )

    def matching_action(self, action: str) -> str | None:
        return next((a for a in self.actions if _glob(a, ignore_case=True).match(action)), None)

    def matching_resource(self, resource: str) -> str | None:
        return next((r for r in self.resources if _glob(r).match(resource)), None)

    def conditions_hold(self, context: Mapping[str, tuple[str, ...]]) -> bool:
        for operator, key, wanted in self.conditions:
            qualifier, _, base = operator.rpartition(":")
            test = _OPERATORS[base]
            have = context.get(key)
            if have is None:
                if qualifier != "ForAllValues":
                    return False
                continue
            matches = [any(test(h, w) for w in wanted) for h in have]
            if qualifier == "ForAllValues":
                held = all(matches)
            elif qualifier == "ForAnyValue":
                held = any(matches)
            else:
                held = len(have) == 1 and matches[0]
            if not held:
                return False
        return True


@dataclass(frozen=True)
class Grant:
    """The part of a statement that allowed a request: (sid, action pattern, resource pattern)."""

    sid: str
    action: str
    resource: str


def grants(statements: Iterable[Statement], req: Request) -> list[Grant]:
    """Every Allow that matches ``req``; empty when it is denied (no Allow, or any Deny)."""
    allowed: list[Grant] = []
    for statement in statements:
        action = statement.matching_action(req.action)
        resource = statement.matching_resource(req.resource)
        if action is None or resource is None or not statement.conditions_hold(req.context):
            continue
        if statement.effect == "Deny":
            return []
        allowed.append(Grant(statement.sid, action, resource))
    return allowed


def every_grant(statements: Iterable[Statement]) -> set[Grant]:
    """Each (statement, action, resource) an Allow names: what an audit expects to see used."""
    return {Grant(s.sid, a, r) for s in statements if s.effect == "Allow" for a in s.actions for r in s.resources}


@dataclass(frozen=True)
class DataAccessRule:
    """One rule of an OpenSearch Serverless data access policy."""

    source: str
    resource_type: str
    resources: tuple[str, ...]
    permissions: tuple[str, ...]
    principals: tuple[str, ...]

    def allows(self, principal: str, permission: str, resource: str) -> bool:
        return (
            principal in self.principals
            and any(_glob(p, ignore_case=True).match(permission) for p in self.permissions)
            and any(_glob(r).match(resource) for r in self.resources)
        )


# --- from an AWS call to what AWS authorises ----------------------------------------------


def requests_for(
    service: str, operation: str, params: Mapping[str, Any], hash_keys: Mapping[str, str]
) -> list[Request]:
    """The authorisation requests AWS evaluates for one API call (IAM's action table,
    for the operations this project makes). ``hash_keys``: each table's partition key
    attribute (``dynamodb:LeadingKeys`` is its value). Anything else is ``UnmappedCallError``."""
    if service == "s3":
        return _s3(operation, params)
    if service == "dynamodb":
        return _dynamodb(operation, params, hash_keys)
    if service == "sqs":
        action = "sqs:SendMessage" if operation in ("SendMessage", "SendMessageBatch") else f"sqs:{operation}"
        return [request(action, queue_arn(params["QueueUrl"]))]
    if service == "bedrock-runtime":
        return _bedrock(operation, params)
    raise UnmappedCallError(f"{service}.{operation} is not mapped to IAM actions")


def _s3(operation: str, params: Mapping[str, Any]) -> list[Request]:
    bucket = f"arn:{PARTITION}:s3:::{params['Bucket']}"
    if operation in ("ListObjectsV2", "ListObjects"):
        context = {"s3:prefix": params.get("Prefix", "")}
        if "Delimiter" in params:
            context["s3:delimiter"] = params["Delimiter"]
        return [request("s3:ListBucket", bucket, context)]
    objects = {"GetObject": "s3:GetObject", "HeadObject": "s3:GetObject", "PutObject": "s3:PutObject"}
    if operation in objects:
        action = objects[operation]
        if "VersionId" in params:
            action += "Version"
        return [request(action, f"{bucket}/{params['Key']}")]
    raise UnmappedCallError(f"s3.{operation} is not mapped to IAM actions")


def missing_key_request(params: Mapping[str, Any]) -> Request:
    """S3 answers a read of a missing key 404 only to a caller that may list the bucket
    (otherwise 403). Whether a ``s3:prefix`` condition counts is not documented, so the
    audit assumes the strict reading: the request carries no prefix."""
    return Request("s3:ListBucket", f"arn:{PARTITION}:s3:::{params['Bucket']}")


LEADING_KEYS = "dynamodb:LeadingKeys"


def _table(name: str, index: str | None = None) -> str:
    arn = f"arn:{PARTITION}:dynamodb:{REGION}:{ACCOUNT}:table/{name}"
    return f"{arn}/index/{index}" if index else arn


def _leading(key: Mapping[str, Any], table: str, hash_keys: Mapping[str, str]) -> str:
    if table not in hash_keys:
        raise UnmappedCallError(f"no partition key is known for table {table}")
    value = key[hash_keys[table]]
    return str(next(iter(value.values())))


def _query_partition(params: Mapping[str, Any], hash_key: str) -> str:
    names = params.get("ExpressionAttributeNames", {})
    for name, placeholder in re.findall(r"(#?[A-Za-z_]\w*)\s*=\s*(:\w+)", params["KeyConditionExpression"]):
        if names.get(name, name) == hash_key:
            return str(next(iter(params["ExpressionAttributeValues"][placeholder].values())))
    raise UnmappedCallError(f"no partition key condition in {params['KeyConditionExpression']!r}")


def _dynamodb(operation: str, params: Mapping[str, Any], hash_keys: Mapping[str, str]) -> list[Request]:
    action = f"dynamodb:{operation}"
    if operation in ("GetItem", "PutItem", "UpdateItem", "DeleteItem"):
        table = params["TableName"]
        key = params.get("Key") or params["Item"]
        return [request(action, _table(table), {LEADING_KEYS: _leading(key, table, hash_keys)})]
    if operation == "Query":
        table = params["TableName"]
        partition = _query_partition(params, hash_keys[table])
        return [request(action, _table(table, params.get("IndexName")), {LEADING_KEYS: partition})]
    if operation == "Scan":
        return [request(action, _table(params["TableName"], params.get("IndexName")))]
    if operation in ("BatchGetItem", "BatchWriteItem"):
        out = []
        for table, spec in params["RequestItems"].items():
            if operation == "BatchGetItem":
                keys = spec["Keys"]
            else:
                keys = [w.get("PutRequest", {}).get("Item") or w["DeleteRequest"]["Key"] for w in spec]
            partitions = sorted({_leading(k, table, hash_keys) for k in keys})
            out.append(request(action, _table(table), {LEADING_KEYS: partitions}))
        return out
    if operation in ("TransactWriteItems", "TransactGetItems"):
        per_item = {"ConditionCheck": "ConditionCheckItem", "Put": "PutItem", "Update": "UpdateItem"}
        per_item |= {"Delete": "DeleteItem", "Get": "GetItem"}
        out = []
        for item in params["TransactItems"]:
            ((kind, spec),) = item.items()
            table = spec["TableName"]
            key = spec.get("Key") or spec["Item"]
            out.append(
                request(f"dynamodb:{per_item[kind]}", _table(table), {LEADING_KEYS: _leading(key, table, hash_keys)})
            )
        return out
    raise UnmappedCallError(f"dynamodb.{operation} is not mapped to IAM actions")


#: Geography prefixes of cross-region inference profile ids (``us.anthropic.…``).
_PROFILE_PREFIX = re.compile(r"^(us|eu|apac|us-gov|ca|jp|au|global)\.")


def _bedrock(operation: str, params: Mapping[str, Any]) -> list[Request]:
    actions = {"Converse": "bedrock:InvokeModel", "InvokeModel": "bedrock:InvokeModel"}
    actions |= {"ConverseStream": "bedrock:InvokeModelWithResponseStream"}
    if operation not in actions:
        raise UnmappedCallError(f"bedrock-runtime.{operation} is not mapped to IAM actions")
    action, model = actions[operation], str(params["modelId"])
    if model.startswith("arn:"):
        raise UnmappedCallError("model ARNs are not modelled; the template names model ids")
    if not _PROFILE_PREFIX.match(model):
        return [request(action, f"arn:{PARTITION}:bedrock:{REGION}::foundation-model/{model}")]
    # Through an inference profile: the profile itself, then the model in whichever of the
    # profile's destination Regions Bedrock picks (each must be allowed: any may be chosen),
    # with the profile named in the request context.
    profile = f"arn:{PARTITION}:bedrock:{REGION}:{ACCOUNT}:inference-profile/{model}"
    geography = model.split(".", 1)[0]
    routed = [
        f"arn:{PARTITION}:bedrock:{region}::foundation-model/{_PROFILE_PREFIX.sub('', model)}"
        for region in PROFILE_DESTINATIONS.get(geography, (REGION,))
    ]
    context = {"bedrock:InferenceProfileArn": profile}
    return [request(action, profile), *(request(action, arn, context) for arn in routed)]


#: Destination Regions of the system-defined profiles the tests use (Bedrock's "Supported
#: Regions and models for inference profiles"; a profile may add Regions later, which is
#: why the template grants the model in every Region, through the profile only).
PROFILE_DESTINATIONS = {"us": ("us-east-1", "us-east-2", "us-west-2"), "eu": ("eu-central-1", "eu-west-1", "eu-west-3")}
