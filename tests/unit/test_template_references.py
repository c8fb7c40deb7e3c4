"""Every reference an OpenSearch Serverless resource makes to another resource gives the
kind of value the property expects: a name where a name is expected, an id where an id,
an ARN where an ARN.

``!Ref`` of a resource yields its primary identifier and ``!GetAtt X.Attr`` the attribute
``Attr``; what each is, and what a property takes, come from the resource schemas
bundled in cfn-lint (the providers' own). The bug this was written for:
``CollectionGroupName: !Ref SearchCollectionGroup`` passed cfn-lint, but a collection
group's primary identifier is its generated ``Id``, and ``CreateCollection`` wants the
group's name. A property that names another resource by a ``!Sub`` must spell that
resource's own name and depend on it, so the name exists when CloudFormation uses it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from cfnlint.schema import PROVIDER_SCHEMA_MANAGER  # type: ignore[import-untyped]

from iam_policy import Intrinsic, Stack, raw_template

OSS = "AWS::OpenSearchServerless::"
KINDS = ("Name", "Id", "Arn", "Endpoint")


def schema(resource_type: str) -> dict[str, Any]:
    found: dict[str, Any] = PROVIDER_SCHEMA_MANAGER.get_resource_schema("us-east-1", resource_type).schema
    return found


def kind_of(name: str) -> str | None:
    """What a property or attribute named ``name`` holds, by the providers' naming: the
    ``Name`` of a thing, its ``Id``, its ``Arn`` or an ``Endpoint``."""
    for kind in KINDS:
        if name.endswith(kind) or name.endswith(kind + "s"):
            return kind
    return None


def yields(logical: str, attribute: str | None) -> str:
    """The schema property a ``!Ref`` (``attribute`` None) or ``!GetAtt`` of ``logical`` gives."""
    resource_type = raw_template()["Resources"][logical]["Type"]
    if attribute is not None:
        return attribute
    identifier = schema(resource_type)["primaryIdentifier"]
    return "|".join(p.removeprefix("/properties/") for p in identifier)


def references(value: Any, path: str) -> Iterator[tuple[str, str, str | None]]:
    """(property path, logical id, attribute or None) for each Ref/GetAtt/${X} in ``value``."""
    resources = raw_template()["Resources"]
    if isinstance(value, Intrinsic):
        if value.name == "Ref" and value.value in resources:
            yield path, value.value, None
        elif value.name == "GetAtt":
            target = value.value if isinstance(value.value, str) else ".".join(value.value)
            logical, _, attribute = target.partition(".")
            yield path, logical, attribute
        elif value.name == "Sub":
            text = value.value if isinstance(value.value, str) else value.value[0]
            for name in re.findall(r"\$\{([^}!]+)\}", text):
                logical, _, attribute = name.partition(".")
                if logical in resources:
                    yield path, logical, attribute or None
        else:
            yield from references(value.value, path)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from references(item, f"{path}.{key}")
    elif isinstance(value, list):
        for item in value:
            yield from references(item, path)


def oss_resources() -> dict[str, dict[str, Any]]:
    return {name: r for name, r in raw_template()["Resources"].items() if r["Type"].startswith(OSS)}


def test_the_template_has_the_opensearch_serverless_resources_this_test_is_for() -> None:
    kinds = {r["Type"].removeprefix(OSS) for r in oss_resources().values()}
    assert {"Collection", "CollectionGroup", "SecurityPolicy", "AccessPolicy"} <= kinds


@pytest.mark.parametrize("logical", sorted(oss_resources()))
def test_a_reference_gives_what_the_property_expects(logical: str) -> None:
    resource = raw_template()["Resources"][logical]
    properties = schema(resource["Type"])["properties"]
    for name, value in resource["Properties"].items():
        assert name in properties, f"{logical}: {resource['Type']} has no property {name}"
        expected = kind_of(name)
        for path, target, attribute in references(value, name):
            given = yields(target, attribute)
            if expected is None or path != name:
                continue  # a reference inside a document (a policy's JSON): checked below
            assert kind_of(given) == expected, (
                f"{logical}.{path} expects a {expected}, but {'!Ref' if attribute is None else '!GetAtt'} "
                f"{target}{'.' + attribute if attribute else ''} gives its {given}"
            )


def _names_of(resource_type: str) -> dict[str, str]:
    """Logical id -> the Name each resource of this type gives itself (with default parameters)."""
    stack = Stack({})
    return {
        logical: str(stack.resolve(r["Properties"]["Name"]))
        for logical, r in raw_template()["Resources"].items()
        if r["Type"] == resource_type and "Name" in r["Properties"]
    }


@pytest.mark.parametrize("stage", ["dev", "a" * 16], ids=["default stage", "longest stage"])
def test_a_resource_named_by_a_sub_is_spelled_as_it_names_itself_and_depended_on(stage: str) -> None:
    stack = Stack({}, {"Stage": stage})
    collection = raw_template()["Resources"]["SearchCollection"]
    group = raw_template()["Resources"]["SearchCollectionGroup"]
    expected = stack.resolve(group["Properties"]["Name"])
    given = stack.resolve(collection["Properties"]["CollectionGroupName"])
    assert given == expected
    assert "SearchCollectionGroup" in collection.get("DependsOn", [])
    # Each name fits the pattern and length its schema allows, at the longest stage too.
    for logical, resource in oss_resources().items():
        properties = schema(resource["Type"])["properties"]
        for name in ("Name", "CollectionGroupName"):
            if name not in resource["Properties"]:
                continue
            value = str(stack.resolve(resource["Properties"][name]))
            spec = properties[name]
            assert re.search(spec["pattern"], value) and len(value) <= spec["maxLength"], f"{logical}.{name}={value}"


def test_every_policy_names_the_collection_this_stack_creates() -> None:
    stack = Stack({})
    (collection,) = _names_of(f"{OSS}Collection").values()
    for logical, resource in oss_resources().items():
        if resource["Type"] not in (f"{OSS}SecurityPolicy", f"{OSS}AccessPolicy"):
            continue
        policy = str(stack.resolve(resource["Properties"]["Policy"]))
        named = set(re.findall(r'"(?:collection|index)/([^/"]+)', policy))
        assert named == {collection}, f"{logical} names {named}, the collection is {collection}"


def test_the_check_catches_a_ref_where_a_name_is_expected() -> None:
    # The template as it was: CollectionGroupName: !Ref SearchCollectionGroup.
    given = yields("SearchCollectionGroup", None)
    assert given == "Id" and kind_of("CollectionGroupName") == "Name" != kind_of(given)


def test_functions_reach_the_collection_by_its_endpoint_and_its_arn() -> None:
    for logical, resource in raw_template()["Resources"].items():
        if resource["Type"] != "AWS::Serverless::Function":
            continue
        variables = resource["Properties"].get("Environment", {}).get("Variables", {})
        for path, target, attribute in references(variables, "Environment"):
            if target == "SearchCollection":
                assert attribute == "CollectionEndpoint", f"{logical}: {path} names the collection by {attribute}"
        for path, target, attribute in references(resource["Properties"].get("Policies", []), "Policies"):
            if target == "SearchCollection":
                assert attribute == "Arn", f"{logical}: {path} names the collection by {attribute or 'its Ref'}"
