"""Schemathesis hooks of the fuzz runs (test/hardening/schemathesis-run.ts loads this file).

A schema-valid case can still break a rule that spans fields or records, which JSON Schema cannot
state and the spec answers 400 `validation-failed`. The fuzzer's positive cases are brought within
those rules here (../../docs/behaviour/api.md);
negative cases go out as generated, and the regular tests cover each refusal.
"""

import hashlib
import itertools
import json
import os
import uuid
from decimal import Decimal, InvalidOperation

import schemathesis

# Body field naming a record → the seeded shop's ids of that kind (written by schemathesis-run.ts).
with open(os.environ["SHOPFLOW_FUZZ_REFERENCES"], encoding="utf-8") as file:
    REFERENCES = json.load(file)
# Every id of the seeded shop: the pools above and the path parameters draw on them.
with open(os.environ["SHOPFLOW_FUZZ_SEEDED"], encoding="utf-8") as file:
    SEEDED = set(json.load(file))
# Operation family (the document's first tag) → its bearer keys, each with every permission, used in
# turn: the rate limit is per key.
with open(os.environ["SHOPFLOW_FUZZ_KEYS"], encoding="utf-8") as file:
    KEYS = {family: itertools.cycle(keys) for family, keys in json.load(file).items()}

# Client addresses the cases come from in turn (TEST-NET-2), sent as X-Forwarded-For to the fuzz API,
# which trusts one hop: invalid keys are counted per client address (600 a minute each).
CLIENT_ADDRESSES = itertools.cycle(f"198.51.100.{host}" for host in range(1, 255))

# Attribute names of a product the fuzzer creates, and the names and values its edits use.
NEW_PRODUCT_NAMES = 7
EDIT_NAMES = ["fuzz-a", "fuzz-b", "fuzz-c"]
EDIT_VALUES = [f"v{index}" for index in range(20)]

# numeric(18, 3): a line's amount and an order's totals are products and sums of fields.
MAX_AMOUNT = Decimal("999999999999999.999")
SAFE_PRICE = Decimal(10) ** 12
CHARGES = ("shippingFee", "surcharge", "tax")


@schemathesis.auth(refresh_interval=None)
class FamilyKey:
    """The next key of the operation's family. Schemathesis leaves it off a negative case whose point is
    a missing or malformed `Authorization` (it must be refused with 401, and would pass with a key)."""

    def get(self, case, context):
        tags = case.operation.tags or []
        keys = KEYS.get(tags[0]) if tags else None
        return next(keys) if keys else None

    def set(self, case, data, context):
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


@schemathesis.hook
def map_case(context, case):
    # A link whose value is a null field (a conversation's `customerId` when it has no customer) sends
    # the id as the string "None", and the request still counts as positive: Schemathesis 4.32.5 skips
    # a null link value, but not a null drawn from a wildcard's matches (`data/*/customerId`). No
    # record has the id put in its place, so the step asks for one that does not exist (404).
    for name, value in (case.path_parameters or {}).items():
        if value is None:
            case.path_parameters[name] = str(uuid.uuid5(uuid.NAMESPACE_OID, f"{case.operation.path}:{name}"))
    # On the case itself, so the ignored_auth check's probes (copies of it without the key) carry it too.
    case.headers = {**(case.headers or {}), "X-Forwarded-For": next(CLIENT_ADDRESSES)}
    # A seeded record stays, in every phase and mode: later cases name it in their bodies (a deleted
    # product's variants are refused). What the fuzzer created itself it may delete.
    if case.method.upper() == "DELETE" and case.path_parameters and case.path_parameters.get("id") in SEEDED:
        case.path_parameters["id"] = str(uuid.uuid5(uuid.NAMESPACE_OID, case.path_parameters["id"]))
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return case
    return _within_rules(case)


@schemathesis.hook
def before_add_examples(context, examples):
    # The document's own examples are positive cases too, which the examples phase sends without
    # map_case, and they name the records of an example shop: each is brought within the same rules.
    for case in examples:
        _within_rules(case)


def _within_rules(case):
    """A positive case brought within the rules across fields and records (the module's docstring)."""
    # A cursor is a value the API signed: one of the right form made up here is a forgery (400
    # invalid-cursor). The stateful phase also draws them on steps no nextCursor link supplied, and a
    # case does not say which: the regular tests walk the pages.
    if case.query:
        case.query.pop("cursor", None)
    body = case.body if isinstance(case.body, dict) else None
    if body is None:
        return case
    path, method = case.operation.path, case.method.upper()
    _real_references(body)
    # Whether a phone number exists is libphonenumber's call (the document gives its form only).
    for contact in body.get("contacts") or []:
        if isinstance(contact, dict) and contact.get("kind") == "phone" and isinstance(contact.get("value"), str):
            contact["value"] = _real_phone(contact["value"])
    # A variant id names a variant of the product in the path, which the fuzzer cannot pair; on
    # create it is the new variant's own, which a made-up id repeated across cases already is (409).
    if method == "POST" and path.endswith("/products"):
        for variant in body.get("variants") or []:
            if isinstance(variant, dict):
                variant.pop("id", None)
    if method == "PATCH" and path.endswith("/products/{id}"):
        # Unnamed variants are added to the stored ones: one an edit keeps the product far from its limit.
        if isinstance(body.get("variants"), list):
            body["variants"] = [variant for variant in body["variants"][:1] if isinstance(variant, dict)]
            for variant in body["variants"]:
                variant.pop("id", None)
    # A product has at most 10 attribute names, each with at most 100 values, the stored ones counted:
    # a new product takes at most 7 names, and an edit only the 3 names every edit shares, with a few
    # values each, so a product the fuzzer edits again and again never outgrows the limits.
    if path.endswith("/products"):
        names = []
        for variant in body.get("variants") or []:
            attributes = variant.get("attributes") if isinstance(variant, dict) else None
            if isinstance(attributes, dict):
                for name in list(attributes):
                    if name not in names and len(names) == NEW_PRODUCT_NAMES:
                        del attributes[name]
                    elif name not in names:
                        names.append(name)
    if path.endswith("/products/{id}"):
        for variant in body.get("variants") or []:
            if isinstance(variant, dict) and isinstance(variant.get("attributes"), dict):
                variant["attributes"] = {_pick(EDIT_NAMES, name): _pick(EDIT_VALUES, value) for name, value in variant["attributes"].items()}
    # A variant without a code gets `<product code>-<n>`, which must fit in 100 characters too.
    if path.endswith("/products") or path.endswith("/products/{id}"):
        if isinstance(body.get("code"), str) and len(body["code"]) > 95:
            for index, variant in enumerate(body.get("variants") or []):
                if isinstance(variant, dict) and not variant.get("code"):
                    variant["code"] = f"V{index + 1}"
    # An address's units form one chain: a district needs its province, an old-system ward its district.
    for address in (body, body.get("shippingAddress")):
        if not isinstance(address, dict):
            continue
        for name in ("recipientPhone", "billPhone"):
            if address.get(name):
                address[name] = _real_phone(address[name])
        if any(address.get(unit) for unit in ("provinceUnitId", "districtUnitId", "wardUnitId")):
            address["geoSystem"] = "old"
        if not address.get("provinceUnitId"):
            address.pop("districtUnitId", None)
            address.pop("wardUnitId", None)
        elif address.get("wardUnitId") and not address.get("districtUnitId"):
            address.pop("wardUnitId", None)
    # A stock document names each variant once.
    if path.endswith("/inventory/documents") and isinstance(body.get("lines"), list):
        lines, seen = [], set()
        for line in body["lines"]:
            variant = line.get("variantId") if isinstance(line, dict) else None
            if variant not in seen:
                lines.append(line)
            seen.add(variant)
        body["lines"] = lines
        # A transfer's target differs from its source.
        warehouses = REFERENCES.get("warehouseId", [])
        if body.get("targetWarehouseId") and body.get("targetWarehouseId") == body.get("warehouseId") and len(warehouses) > 1:
            body["targetWarehouseId"] = next(id_ for id_ in warehouses if id_ != body["warehouseId"])
    if path.endswith("/orders") or path.endswith("/orders/{id}"):
        _within_amount_limit(body)
    return case


def _pick(pool, value):
    """The same pool id for the same drawn value, so a failing case replays and shrinks."""
    return pool[int(hashlib.sha256(str(value).encode()).hexdigest(), 16) % len(pool)]


def _real_references(value):
    if isinstance(value, list):
        for item in value:
            _real_references(item)
    elif isinstance(value, dict):
        for name, item in value.items():
            pool = REFERENCES.get(name)
            if pool and isinstance(item, str) and item not in pool:
                value[name] = _pick(pool, item)
            elif pool and isinstance(item, list):
                value[name] = [_pick(pool, one) if isinstance(one, str) and one not in pool else one for one in item]
            else:
                _real_references(item)


def _real_phone(value):
    """A mobile number (091 and seven digits) standing for a drawn one; the form is what is fuzzed."""
    return value if not isinstance(value, str) or not value else "091" + str(int(hashlib.sha256(value.encode()).hexdigest(), 16) % 10**7).zfill(7)


def _decimal(value):
    try:
        return Decimal(value) if isinstance(value, str) else Decimal(0)
    except InvalidOperation:
        return Decimal(0)


def _within_amount_limit(order):
    lines = [line for line in order.get("lines") or [] if isinstance(line, dict)]
    _scale_down(order, lines)
    # A line's discount is at most its amount.
    for line in lines:
        if _decimal(line.get("discount")) > _amount(line):
            line["discount"] = "0"
    # The order's discount is at most its goods and charges (a PATCH without lines: its charges only).
    goods = sum((_amount(line) - _decimal(line.get("discount")) for line in lines), Decimal(0))
    if _decimal(order.get("discount")) > goods + _charges(order):
        order["discount"] = "0"


def _amount(line):
    return _decimal(line.get("quantity")) * _decimal(line.get("unitPrice"))


def _charges(order):
    return sum((_decimal(order.get(name)) for name in CHARGES), Decimal(0))


def _scale_down(order, lines):
    total = sum((_amount(line) for line in lines), Decimal(0)) + _charges(order)
    paid = sum((_decimal(payment.get("amount")) for payment in order.get("payments") or [] if isinstance(payment, dict)), Decimal(0))
    if total <= MAX_AMOUNT and paid <= MAX_AMOUNT:
        return
    # At most 200 lines and three fees of 10^12 each stay below 10^15.
    for line in lines:
        line["quantity"] = "1"
        if _decimal(line.get("unitPrice")) > SAFE_PRICE:
            line["unitPrice"] = str(SAFE_PRICE)
    for name in CHARGES:
        if _decimal(order.get(name)) > SAFE_PRICE:
            order[name] = str(SAFE_PRICE)
    for payment in order.get("payments") or []:
        if isinstance(payment, dict) and _decimal(payment.get("amount")) > SAFE_PRICE:
            payment["amount"] = str(SAFE_PRICE)
