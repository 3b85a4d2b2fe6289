#!/usr/bin/env python3
"""Rebuild bench/data/*.jsonl from the public sources at their pinned commits.

    python3 bench/data/make-bench-data.py --metatool DIR --bfcl DIR --apibank DIR --out DIR

Each DIR is a checkout of the source repository (MetaTool, gorilla, DAMO-ConvAI)
at the commit pinned below; one that is not given is fetched with git (sparse,
only the files read here), which needs network access. Every record is rebuilt
from the sources; which cases belong to the shared split, and which definition
of a BFCL function defined more than once is kept, come from split.json next to
this script. The output is checked against SHA256SUMS next to this script.
README.md next to this script documents every rule applied here.

Python 3 standard library only. API-Bank's tools are read from Python source
with `ast`, never imported or executed.
"""

import argparse
import ast
import csv
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATASETS = ("metatool", "bfcl", "apibank")

# Where each dataset comes from, and the only paths read from it (for a sparse fetch).
SOURCES = {
    "metatool": {
        "url": "https://github.com/HowieHwong/MetaTool",
        "commit": "35e81bb7576826e980c80fed8f8c0a2b4a1e6fbb",
        "paths": ["dataset/plugin_des.json", "dataset/data/", "dataset/tmp_dataset/Task1.json"],
    },
    "bfcl": {
        "url": "https://github.com/ShishirPatil/gorilla",
        "commit": "6ea57973c7a6097fd7c5915698c54c17c5b1b6c8",
        "paths": ["berkeley-function-call-leaderboard/bfcl_eval/data/"],
    },
    "apibank": {
        "url": "https://github.com/AlibabaResearch/DAMO-ConvAI",
        "commit": "483554eae102996f5ec1f4feab4e78ef29c2a394",
        "paths": ["api-bank/apis/", "api-bank/lv3_apis/", "api-bank/lv1-lv2-samples/"],
    },
}


# ---------------------------------------------------------------- output


def jsonl_line(record):
    # ensure_ascii=False: text stays UTF-8 as the sources have it.
    return json.dumps(record, ensure_ascii=False) + "\n"


def write_jsonl(path, records):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.writelines(jsonl_line(r) for r in records)


def sorted_keys(value):
    """A copy of a JSON value with every object's keys sorted (BFCL schemas are written so)."""
    if isinstance(value, dict):
        return {k: sorted_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [sorted_keys(v) for v in value]
    return value


def read_json_lines(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


# ---------------------------------------------------------------- metatool


def metatool_text(text):
    """Trim, and drop a pair of double quotes wrapping the whole query (the dataset quotes some)."""
    text = text.strip()
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        text = text[1:-1].strip()
    return text


def metatool_single_pool(rows):
    """Row numbers of ToolE rows that may be used: one tool per text, first of duplicates (case-insensitive)."""
    labels = {}
    for query, tool in rows:
        labels.setdefault(metatool_text(query).lower(), set()).add(tool)
    pool, seen, conflicting = set(), set(), 0
    for i, (query, _tool) in enumerate(rows):
        key = metatool_text(query).lower()
        if len(labels[key]) > 1:
            conflicting += 1
            continue
        if key not in seen:
            seen.add(key)
            pool.add(i)
    return pool, conflicting


def build_metatool(root, ids):
    data = os.path.join(root, "dataset")
    with open(os.path.join(data, "plugin_des.json"), encoding="utf-8") as f:
        plugins = json.load(f)
    tools = [{"name": n, "description": d.strip(), "inputSchema": {}} for n, d in sorted(plugins.items())]

    with open(os.path.join(data, "data", "all_clean_data.csv"), encoding="utf-8", newline="") as f:
        rows = [tuple(r) for r in csv.reader(f)][1:]  # header: Query,Tool
    with open(os.path.join(data, "data", "multi_tool_query_golden.json"), encoding="utf-8") as f:
        multi = json.load(f)
    with open(os.path.join(data, "tmp_dataset", "Task1.json"), encoding="utf-8") as f:
        awareness = json.load(f)
    pool, conflicting = metatool_single_pool(rows)

    # Ids: metatool-single-N = data row N of the CSV (0-based, header excluded),
    # metatool-multi-N = entry N of the golden list, metatool-none-N = entry N of Task1.json.
    queries = []
    for case_id in ids:
        kind, n = case_id.split("-")[1], int(case_id.split("-")[2])
        if kind == "single":
            require(n in pool, f"{case_id}: row {n} is a dropped (conflicting or duplicate) ToolE row")
            query, tool = rows[n]
            queries.append({"id": case_id, "query": metatool_text(query), "expected": [tool], "kind": "single"})
        elif kind == "multi":
            entry = multi[n]
            queries.append({"id": case_id, "query": metatool_text(entry["query"]), "expected": entry["tool"], "kind": "multi"})
        elif kind == "none":
            entry = awareness[n]
            require(entry["label"] == "negative", f"{case_id}: Task1 entry {n} is not a negative")
            queries.append({"id": case_id, "query": entry["query"].strip(), "expected": [], "kind": "no_tool"})
        else:
            require(False, f"{case_id}: unknown MetaTool id")
    stats = {
        "tools": len(tools),
        "single_pool": len(pool),
        "single_dropped_conflicting_label_rows": conflicting,
        "multi_pool": len(multi),
        "no_tool_pool": sum(1 for e in awareness if e["label"] == "negative"),
    }
    return tools, queries, stats


# ---------------------------------------------------------------- bfcl

# Tool-calling categories first, several-function ones before single-function ones:
# the order in which duplicate question texts keep their first case.
BFCL_CATEGORIES = [
    "multiple", "parallel_multiple", "live_multiple", "live_parallel_multiple",
    "simple_python", "parallel", "live_simple", "live_parallel",
    "irrelevance", "live_irrelevance",
]
BFCL_CATALOG_ONLY = ["live_relevance"]  # no ground truth: contributes tools only
BFCL_TYPES = {"dict": "object", "float": "number", "tuple": "array"}  # "any": no type at all

JSON_TYPE_CHECKS = {
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def bfcl_schema(schema):
    """BFCL parameter schema -> JSON Schema: map the types, drop the non-standard `optional` flag."""
    out = {}
    for key, value in schema.items():
        if key == "optional":
            continue
        if key == "type" and isinstance(value, str):
            if value != "any":
                out[key] = BFCL_TYPES.get(value, value)
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: bfcl_schema(p) for name, p in value.items()}
        elif key == "items" and isinstance(value, dict):
            out[key] = bfcl_schema(value)
        else:
            out[key] = value
    return out


def bfcl_tool(function):
    return {
        "name": function["name"],
        "description": function["description"].strip(),
        "inputSchema": sorted_keys(bfcl_schema(function["parameters"])),
    }


def fits(value, schema):
    """The value has the schema's declared type and, if there is one, is in its enum."""
    check = JSON_TYPE_CHECKS.get(schema.get("type"))
    if check and not check(value):
        return False
    return "enum" not in schema or value in schema["enum"]


def deep_fits(value, schema):
    """fits(), also for list items and the declared keys of objects."""
    if not fits(value, schema):
        return False
    if isinstance(value, list):
        return all(deep_fits(v, schema.get("items", {})) for v in value)
    if isinstance(value, dict) and "properties" in schema:
        props = schema["properties"]
        return all(deep_fits(v, props[k]) for k, v in value.items() if k in props)
    return True


def is_accept_map(value):
    # BFCL writes nested objects of a ground truth as {key: [accepted values]};
    # an object whose values are not all lists is a literal value.
    return isinstance(value, dict) and all(isinstance(v, list) for v in value.values())


def representative(value, schema):
    """One concrete value for an accepted value: nested accept maps reduced key by key."""
    if isinstance(value, list):
        return [representative(v, schema.get("items", {})) for v in value]
    if is_accept_map(value):
        props = schema.get("properties", {})
        return {k: pick(acc, props.get(k, {})) for k, acc in value.items() if given(acc)}
    return value


def given(accepted):
    return any(v != "" for v in accepted)


def pick(accepted, schema):
    """First accepted value that fits the declared type and enum, else the first one ("" = omitted, never picked)."""
    values = [v for v in accepted if v != ""]
    for v in values:
        if fits(v, schema):
            return representative(v, schema)
    return representative(values[0], schema)


def bfcl_args(accept, schema):
    """Arguments that must be given (BFCL does not accept omitting them, or the schema requires them)."""
    props, required = schema.get("properties", {}), schema.get("required", [])
    return {
        k: pick(acc, props.get(k, {}))
        for k, acc in accept.items()
        if given(acc) and ("" not in acc or k in required)
    }


def can_score(accept, schema):
    """The kept definition declares every ground-truth argument and accepts the representative args."""
    props = schema.get("properties", {})
    if any(k not in props for k in accept):
        return False
    return all(deep_fits(v, props[k]) for k, v in bfcl_args(accept, schema).items())


def bfcl_read(data_dir, category):
    with_answers = category not in ("irrelevance", "live_irrelevance") + tuple(BFCL_CATALOG_ONLY)
    cases = read_json_lines(os.path.join(data_dir, f"BFCL_v4_{category}.json"))
    answers = {}
    if with_answers:
        answers = {a["id"]: a["ground_truth"] for a in read_json_lines(os.path.join(data_dir, "possible_answer", f"BFCL_v4_{category}.json"))}
    return cases, answers


def single_user_message(case):
    turns = case["question"]
    return len(turns) == 1 and len(turns[0]) == 1 and turns[0][0]["role"] == "user"


def bfcl_catalog(all_cases, kept_from):
    """One tool per name; a name defined differently in several cases keeps the definition of case kept_from[name]."""
    variants, by_case = {}, {}
    for case in all_cases:
        for function in case["function"]:
            tool = bfcl_tool(function)
            by_case.setdefault((case["id"], tool["name"]), tool)
            seen = variants.setdefault(tool["name"], [])
            if tool not in seen:
                seen.append(tool)
    catalog = {}
    for name, seen in variants.items():
        if len(seen) == 1:
            catalog[name] = seen[0]
        else:
            require(name in kept_from, f"bfcl: {name} has {len(seen)} definitions but split.json records none to keep")
            catalog[name] = by_case.get((kept_from[name], name))
            require(catalog[name] is not None, f"bfcl: case {kept_from[name]} does not define {name}")
    merged = sum(1 for seen in variants.values() if len(seen) > 1)
    return catalog, by_case, merged


def build_bfcl(root, ids, kept_from):
    data_dir = os.path.join(root, "berkeley-function-call-leaderboard", "bfcl_eval", "data")
    all_cases, answers, category_of, eligible = [], {}, {}, {}
    seen_text = set()
    stats = {"skipped_not_single_user_message": 0, "skipped_duplicate_question": 0}
    for category in BFCL_CATEGORIES + BFCL_CATALOG_ONLY:
        cases, category_answers = bfcl_read(data_dir, category)
        all_cases += cases
        answers.update(category_answers)
        if category in BFCL_CATALOG_ONLY:
            continue
        for case in cases:
            category_of[case["id"]] = category
            if not single_user_message(case):
                stats["skipped_not_single_user_message"] += 1
                continue
            key = case["question"][0][0]["content"].strip().lower()
            if key in seen_text:
                stats["skipped_duplicate_question"] += 1
                continue
            seen_text.add(key)
            eligible[case["id"]] = case
    catalog, by_case, merged = bfcl_catalog(all_cases, kept_from)

    queries, without_args = [], 0
    for case_id in ids:
        cid = case_id[len("bfcl-"):]
        require(cid in eligible, f"{case_id}: not an eligible BFCL case (skipped, duplicate or unknown)")
        case = eligible[cid]
        record = {"id": case_id, "query": case["question"][0][0]["content"].strip(), "expected": []}
        calls = answers.get(cid)
        accept = None
        if calls:
            for call in calls:
                name = next(iter(call))
                if name not in record["expected"]:
                    record["expected"].append(name)
            name, accept = next(iter(calls[0].items()))
            kept = catalog[name]
            if by_case[(cid, name)] == kept or can_score(accept, kept["inputSchema"]):
                record["args"] = bfcl_args(accept, kept["inputSchema"])
            else:
                accept = None  # the merged definition cannot score this case: neither args nor args_accept
                without_args += 1
        record["category"] = category_of[cid]
        record["candidates"] = [f["name"] for f in case["function"]]
        if accept is not None:
            record["args_accept"] = accept
        queries.append(record)

    tools = [catalog[name] for name in sorted(catalog)]
    stats.update({
        "tools": len(tools),
        "eligible_cases": len(eligible),
        "function_names_with_several_definitions_merged": merged,
        "shared_cases_without_args_after_merge": without_args,
    })
    for category in BFCL_CATEGORIES:
        stats[f"eligible_{category}"] = sum(1 for c in eligible if category_of[c] == category)
    return tools, queries, stats


# ---------------------------------------------------------------- apibank

APIBANK_TYPES = {"str": "string", "int": "integer", "float": "number", "bool": "boolean", "list": "array", "list(str)": "array"}


def api_classes(path):
    """(name, class attributes) of the API classes in a Python file, read with ast (never executed)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), filename=path)
    for node in tree.body:
        if not isinstance(node, ast.ClassDef) or not any(isinstance(b, ast.Name) and b.id == "API" for b in node.bases):
            continue
        attrs = {}
        for stmt in node.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                name = stmt.targets[0].id
                if name in ("description", "input_parameters"):
                    attrs[name] = ast.literal_eval(stmt.value)
        yield node.name, attrs


def parameter_is_optional(description):
    # "[Optional] ...", or "Only needed for the first call." (ForgotPassword's two kinds of call)
    text = description.lower()
    return "optional" in text or "only needed for" in text


def apibank_tool(name, attrs):
    properties, required = {}, []
    for param, spec in attrs["input_parameters"].items():
        prop = {"type": APIBANK_TYPES[spec["type"]]}
        if spec["type"] == "list(str)":
            prop["items"] = {"type": "string"}
        prop["description"] = spec["description"]
        properties[param] = prop
        if not parameter_is_optional(spec["description"]):
            required.append(param)
    schema = {"type": "object", "properties": properties}
    if properties:
        schema["required"] = required
    return {"name": name, "description": attrs["description"], "inputSchema": schema}


def apibank_tools(api_root):
    tools = {}
    for folder in ("apis", "lv3_apis"):
        for fname in sorted(os.listdir(os.path.join(api_root, folder))):
            if not fname.endswith(".py"):
                continue
            for name, attrs in api_classes(os.path.join(api_root, folder, fname)):
                # First definition wins (apis/ before lv3_apis/); ToolSearcher is the retrieval step under test.
                if name != "ToolSearcher" and name not in tools:
                    tools[name] = apibank_tool(name, attrs)
    return tools


def coerce(value, schema):
    """A value recorded as a string, converted to the declared type where unambiguous."""
    if not isinstance(value, str):
        return value
    kind = schema.get("type")
    try:
        if kind == "integer":
            return int(value)
        if kind == "number":
            return float(value)
        if kind == "array":
            parsed = ast.literal_eval(value)
            return parsed if isinstance(parsed, list) else value
    except (ValueError, SyntaxError, TypeError):
        return value
    if kind == "boolean" and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return value


def strings_in(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings_in(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings_in(v)


def apibank_case(turns, level, folder, fname, tools, stats):
    """The record of one dialogue, or None if it records no API call."""
    calls = [t for t in turns if t["role"] == "API" and t["api_name"] != "ToolSearcher"]
    if not calls:
        return None
    expected = []
    for call in calls:
        if call["api_name"] not in expected:
            expected.append(call["api_name"])
    if "GetUserToken" in expected:  # an authentication step: listed last
        expected.remove("GetUserToken")
        expected.append("GetUserToken")
    record = {
        "id": f"apibank-{level}-{fname[: -len('.jsonl')]}",
        "query": "\n".join(t["text"] for t in turns if t["role"] == "User"),
        "expected": expected,
    }
    first = next(t for t in turns if t["role"] == "API" and t["api_name"] == expected[0])
    props = tools[expected[0]]["inputSchema"]["properties"]
    params = first["param_dict"]
    args = {k: coerce(v, props[k]) if k in props else v for k, v in params.items()}
    stats["argument_values_coerced_to_declared_type"] += sum(1 for k in params if type(args[k]) is not type(params[k]))
    if all(k in props for k in params):
        record["args"] = args
        # Values copied from an earlier API result (user tokens), which no user message contains.
        earlier = {s for t in turns[: turns.index(first)] if t["role"] == "API" for s in strings_in(t["result"]["output"])}
        context = [k for k, v in params.items() if isinstance(v, str) and v in earlier]
        if context:
            record["context_args"] = context
            stats["cases_with_context_args"] += 1
    else:
        stats["cases_without_args"] += 1
    record["source"] = f"{folder}/{fname}"
    return record


def build_apibank(root, ids):
    api_root = os.path.join(root, "api-bank")
    tools = apibank_tools(api_root)
    stats = {"tools": len(tools), "dialogues_kept": 0, "skipped_no_api_call": 0, "skipped_duplicate_user_text": 0,
             "cases_with_context_args": 0, "cases_without_args": 0, "argument_values_coerced_to_declared_type": 0}
    pool, seen_text = {}, set()
    for folder, level in (("level-1-given-desc", "level1"), ("level-2-toolsearcher", "level2")):
        folder_path = os.path.join(api_root, "lv1-lv2-samples", folder)
        for fname in sorted(os.listdir(folder_path)):
            if not fname.endswith(".jsonl"):
                continue
            turns = read_json_lines(os.path.join(folder_path, fname))
            record = apibank_case(turns, level, folder, fname, tools, stats)
            if record is None:
                stats["skipped_no_api_call"] += 1
            elif record["query"] in seen_text:
                stats["skipped_duplicate_user_text"] += 1
            else:
                seen_text.add(record["query"])
                pool[record["id"]] = record
    stats["dialogues_kept"] = len(pool)
    for case_id in ids:
        require(case_id in pool, f"{case_id}: not an API-Bank dialogue with an API call")
    return list(tools.values()), [pool[i] for i in ids], stats


# ---------------------------------------------------------------- sources


def require(condition, message):
    if not condition:
        raise SystemExit(f"make-bench-data: {message}")


def git(*args, cwd=None):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def fetch_source(name, dest, sources=SOURCES):
    """Sparse, shallow checkout of the pinned commit: only the paths this script reads."""
    src = sources[name]
    print(f"{name}: no checkout given, fetching {src['url']} at {src['commit']} ...", file=sys.stderr)
    if shutil.which("git") is None:
        raise SystemExit(f"make-bench-data: git is not installed; pass --{name} DIR (a checkout of {src['url']} at {src['commit']})")
    try:
        git("init", "-q", dest)
        git("remote", "add", "origin", src["url"], cwd=dest)
        git("config", "core.sparseCheckout", "true", cwd=dest)
        with open(os.path.join(dest, ".git", "info", "sparse-checkout"), "w") as f:
            f.write("".join(f"/{p}\n" for p in src["paths"]))
        git("fetch", "-q", "--depth", "1", "--filter=blob:none", "origin", src["commit"], cwd=dest)
        git("checkout", "-q", "FETCH_HEAD", cwd=dest)
    except subprocess.CalledProcessError as e:
        raise SystemExit(
            f"make-bench-data: could not fetch {src['url']} (no network access?):\n{e.stderr.strip()}\n"
            f"Pass --{name} DIR with a checkout of that repository at {src['commit']} instead."
        )
    return dest


def check_commit(name, path, sources=SOURCES):
    """Warn (not fail) when a given checkout is not at the pinned commit; SHA256SUMS decides."""
    want = sources[name]["commit"]
    if not os.path.exists(os.path.join(path, ".git")):
        print(f"{name}: {path} is not a git checkout; cannot confirm it is commit {want}", file=sys.stderr)
        return
    head = git("rev-parse", "HEAD", cwd=path)
    if head != want:
        print(f"{name}: WARNING: {path} is at {head}, not the pinned {want}", file=sys.stderr)


# ---------------------------------------------------------------- check


def read_sums(path):
    sums = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            digest, fname = line.split()
            sums[fname.lstrip("*")] = digest
    return sums


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def record_key(line):
    record = json.loads(line)
    return record.get("id", record.get("name"))


def differing_records(built, committed):
    """Ids (names for tools) whose line differs between two jsonl files, or exists in one only."""
    def lines(path):
        with open(path, encoding="utf-8") as f:
            return {record_key(line): line for line in f if line.strip()}
    a, b = lines(built), lines(committed)
    return sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))


def check_all(out_dir, files):
    """check(), printed as the scripts end: 0 when every file matches SHA256SUMS, else 1."""
    failed = check(out_dir, files)
    if failed:
        print(f"{len(failed)} file(s) differ from SHA256SUMS: {', '.join(failed)}")
        return 1
    print("all files match SHA256SUMS")
    return 0


def check(out_dir, files):
    """Compare the written `files` with SHA256SUMS; name the records of any file that differs."""
    sums = read_sums(os.path.join(HERE, "SHA256SUMS"))
    failed = []
    for fname in sorted(files):
        digest = sums.get(fname)
        path = os.path.join(out_dir, fname)
        if sha256(path) == digest:
            print(f"{fname}: OK")
            continue
        failed.append(fname)
        committed = os.path.join(HERE, fname)
        if os.path.abspath(committed) != os.path.abspath(path) and os.path.exists(committed) and sha256(committed) == digest:
            keys = differing_records(path, committed)
            shown = ", ".join(keys[:20]) + (f" ... ({len(keys)} in all)" if len(keys) > 20 else "")
            print(f"{fname}: DIFFERS from SHA256SUMS; records differing from the committed file: {shown or 'none (order or bytes only)'}")
        else:
            print(f"{fname}: DIFFERS from SHA256SUMS (no intact committed copy to compare records with)")
    return failed


# ---------------------------------------------------------------- main


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name in DATASETS:
        src = SOURCES[name]
        parser.add_argument(f"--{name}", metavar="DIR", help=f"checkout of {src['url']} at {src['commit'][:12]} (default: fetch it with git)")
    parser.add_argument("--out", metavar="DIR", required=True, help="where to write the six .jsonl files")
    parser.add_argument("--split", metavar="FILE", default=os.path.join(HERE, "split.json"), help="the shared split's manifest")
    opts = parser.parse_args()

    with open(opts.split, encoding="utf-8") as f:
        split = json.load(f)
    os.makedirs(opts.out, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="make-bench-data-") as tmp:
        roots = {}
        for name in DATASETS:
            given_dir = getattr(opts, name)
            if given_dir:
                check_commit(name, given_dir)
                roots[name] = given_dir
            else:
                roots[name] = fetch_source(name, os.path.join(tmp, name))

        built = {
            "metatool": build_metatool(roots["metatool"], split["metatool"]),
            "bfcl": build_bfcl(roots["bfcl"], split["bfcl"], split["bfcl_kept_definitions"]),
            "apibank": build_apibank(roots["apibank"], split["apibank"]),
        }
    for name, (tools, queries, stats) in built.items():
        write_jsonl(os.path.join(opts.out, f"{name}.tools.jsonl"), tools)
        write_jsonl(os.path.join(opts.out, f"{name}.queries.jsonl"), sorted(queries, key=lambda r: r["id"]))
        print(f"{name}: {len(tools)} tools, {len(queries)} queries; " + ", ".join(f"{k}: {v}" for k, v in stats.items()))

    return check_all(opts.out, [f"{name}.{kind}.jsonl" for name in DATASETS for kind in ("tools", "queries")])


if __name__ == "__main__":
    sys.exit(main())
