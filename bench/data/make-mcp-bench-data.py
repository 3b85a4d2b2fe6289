#!/usr/bin/env python3
"""Build bench/data/livemcp*.jsonl from LiveMCPBench and the MCP-Zero corpus at their pinned commits.

    python3 bench/data/make-mcp-bench-data.py --livemcpbench DIR --mcp-zero DIR --out DIR

Each DIR is a checkout of the source repository at the commit pinned below, or a
folder holding the files read here side by side (as ../shared/bench-mcp/ does); one
that is not given is fetched with git (sparse, only those files), which needs network
access. Writes livemcp.tools.jsonl (LiveMCPBench's 527 tools), livemcp.queries.jsonl
(its 95 tasks) and livemcp-zero.tools.jsonl (those tools and the MCP-Zero corpus'),
then checks them against SHA256SUMS next to this script. README.md next to this
script documents every rule applied here.

Python 3 standard library only; the git fetch and the checksum check are
make-bench-data.py's.
"""

import argparse
import importlib.util
import json
import os
import re
import sys
import tempfile
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))


def load_shared():
    spec = importlib.util.spec_from_file_location("make_bench_data", os.path.join(HERE, "make-bench-data.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


shared = load_shared()
require = shared.require

SOURCES = {
    "livemcpbench": {
        "url": "https://github.com/icip-cas/LiveMCPBench",
        "commit": "a928e57d1ee7a25579b9a7036030faffff72d15b",
        "paths": ["tools/LiveMCPTool/tools.json", "annotated_data/all_annotations.json", "LICENSE"],
    },
    "mcp-zero": {
        "url": "https://github.com/StacklokLabs/mcp-tef",
        "commit": "1553c31835eb0d9503725e77f078999673b3088f",
        "paths": ["tests/data/mcp_tools_cleaned.json", "LICENSE"],
    },
}
OUTPUTS = ["livemcp.tools.jsonl", "livemcp.queries.jsonl", "livemcp-zero.tools.jsonl"]

# LiveMCPBench keys two servers under another server's name (a copied config entry);
# they are named after their own repositories instead. Keyed by LiveMCPBench's server title.
SERVER_RENAMES = {
    "Simple Document Processing MCP Server": ("searxng", "mcp-doc-forge"),  # runs @cablate/mcp-doc-forge
    "MCP Server LeetCode": ("coin-flip", "mcp-server-leetcode"),  # runs @mcpfun/mcp-server-leetcode
}

# MCP-Zero servers that are a LiveMCPBench server although their repository addresses differ:
# LiveMCPBench's `web` for Airbnb points to another repository, its config runs @openbnb/mcp-server-airbnb.
SAME_SERVER = {"Airbnb": "airbnb"}

# Gold tool names that match no tool as written, each resolved to the one tool whose
# description is the annotator's step (README "livemcp", gold tools).
GOLD_ALIASES = {
    "trial_references": ("biomcp", "trial_references_getter"),  # "publications and references for a clinical trial"
    "get_maven_latest_version": ("maven-deps-server", "get_latest_release"),  # "latest release version of a Maven dependency"
    "ddg-search": ("duckduckgo-search", "duckduckgo_web_search"),  # the DuckDuckGo server's one search tool
}
# Gold tool names that match no tool and mean none unmistakably: left out of `expected`, listed in `unresolved`.
GOLD_UNRESOLVED = {
    "execute_command": "a shell command (wget); no tool has that name, desktop-commander runs processes with start_process",
    "open_document": "no Word tool opens a document; create_document makes one",
}
# Gold tool names served by several servers: the servers whose tool the annotation means, the first
# listed in `expected`, the others in `alternatives` (they do the same thing).
GOLD_SERVERS = {
    "write_file": ["filesystem", "desktop-commander"],
    "read_file": ["filesystem", "desktop-commander"],
    "list_directory": ["filesystem", "desktop-commander"],  # not basic-memory's: it lists its notes, not a folder
    "search_papers": ["arxiv-mcp-server", "mcp-simple-arxiv"],  # both search arXiv
    "fetch": ["fetch"],  # the tasks fetch web pages; biomcp's fetch takes a biomedical record id
    "add_table": ["word-document-server"],  # its one task builds a Word document, not slides
}


def server_name(text):
    """A server's name: each run of characters outside [A-Za-z0-9_-] becomes "_" (the router's SERVER_NAME_PATTERN)."""
    name = re.sub(r"[^A-Za-z0-9_-]+", "_", text).strip("_")
    require(name, f"server {text!r} has no name characters")
    return name


def tool_part(text):
    """A tool's part of its catalog name: each run of characters outside [A-Za-z0-9_.-] becomes "_"."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")
    require(name, f"tool {text!r} has no name characters")
    return name


def tool_record(server, tool, description, schema):
    return {
        "name": f"{server}.{tool_part(tool)}",
        "description": description.strip(),
        "inputSchema": schema,
        "server": server,
        "serverTool": tool,
    }


def source_file(root, repo_path):
    """The file at its path in a checkout, or beside the others in a folder of copies."""
    for path in (os.path.join(root, repo_path), os.path.join(root, os.path.basename(repo_path))):
        if os.path.exists(path):
            return path
    raise SystemExit(f"make-mcp-bench-data: {repo_path} is not in {root}")


def read_json(root, repo_path):
    with open(source_file(root, repo_path), encoding="utf-8") as f:
        return json.load(f)


def repository(url):
    """A server's repository address, comparable across the two sources."""
    url = url.strip().rstrip("/").lower().replace("http://", "https://")
    if url.startswith("src/"):  # MCP-Zero writes the reference servers relative to their repository
        url = "https://github.com/modelcontextprotocol/servers/tree/main/" + url
    return url.replace("/servers-archived/", "/servers/")  # the archived reference servers moved there


# ---------------------------------------------------------------- livemcpbench


def livemcp_servers(entries):
    """(server name, repository, tools) per LiveMCPBench entry, in file order."""
    servers = []
    for entry in entries:
        require(len(entry["tools"]) == 1, f"{entry['name']}: one server per entry expected")
        (key, served), = entry["tools"].items()
        renamed = SERVER_RENAMES.get(entry["name"])
        if renamed:
            require(key == renamed[0], f"{entry['name']}: keyed {key!r}, not {renamed[0]!r} as SERVER_RENAMES says")
        name = renamed[1] if renamed else server_name(key)
        servers.append((name, repository(entry["web"]), served["tools"]))
    return servers


def livemcp_tools(servers):
    tools = []
    for server, _repo, served in servers:
        for tool in served:
            require(isinstance(tool.get("inputSchema"), dict), f"{server}.{tool['name']}: no inputSchema")
            tools.append(tool_record(server, tool["name"], tool.get("description") or "", tool["inputSchema"]))
    return tools


def gold_names(task):
    """The tools the annotator listed ("1. name" per line), in order, without repeats."""
    names = []
    for line in task["Annotator Metadata"]["Tools"].split("\n"):
        if line.strip():
            match = re.match(r"^\s*\d+\s*\.\s*(\S.*?)\s*$", line)
            require(match, f"{task['task_id']}: tool line {line!r} is not '<n>. <name>'")
            if match.group(1) not in names:
                names.append(match.group(1))
    return names


def livemcp_queries(tasks, tools, stats):
    servers_of = {}
    for t in tools:
        servers_of.setdefault(t["serverTool"], []).append(t["server"])
    catalog = {t["name"] for t in tools}
    counts = Counter()
    queries = []
    for task in tasks:
        expected, alternatives, unresolved = [], {}, []
        for name in gold_names(task):
            counts["gold"] += 1
            found = servers_of.get(name, [])
            if name in GOLD_ALIASES:
                require(not found, f"{name}: in GOLD_ALIASES but a tool has that name")
                server, tool = GOLD_ALIASES[name]
                names = [f"{server}.{tool}"]
                counts["gold_by_alias"] += 1
            elif name in GOLD_UNRESOLVED:
                require(not found, f"{name}: in GOLD_UNRESOLVED but a tool has that name")
                unresolved.append(name)
                counts["gold_unresolved"] += 1
                continue
            elif len(found) > 1:
                require(name in GOLD_SERVERS, f"{name}: served by {found}; say which in GOLD_SERVERS")
                require(set(GOLD_SERVERS[name]) <= set(found), f"{name}: GOLD_SERVERS names a server without it")
                names = [f"{server}.{name}" for server in GOLD_SERVERS[name]]
                counts["gold_on_several_servers"] += 1
            else:
                require(found, f"{name} ({task['task_id']}): no tool has that name; add it to GOLD_ALIASES or GOLD_UNRESOLVED")
                names = [f"{found[0]}.{name}"]
                counts["gold_exact"] += 1
            require(all(n in catalog for n in names), f"{names}: not in the catalog")
            expected.append(names[0])
            if len(names) > 1:
                alternatives[names[0]] = names[1:]
        require(expected, f"{task['task_id']}: no gold tool resolves")
        record = {"id": f"livemcp-{task['task_id']}", "query": task["Question"].strip(), "expected": expected, "category": task["category"]}
        if alternatives:
            record["alternatives"] = alternatives
        if unresolved:
            record["unresolved"] = unresolved
        counts["tasks_with_unresolved"] += bool(unresolved)
        counts["tasks_with_alternatives"] += bool(alternatives)
        queries.append(record)
    stats.update(counts)
    stats["gold_per_task"] = round(counts["gold"] / len(tasks), 3)
    stats["expected_per_task"] = round(sum(len(q["expected"]) for q in queries) / len(tasks), 3)
    stats["gold_servers_per_task"] = round(sum(len({n.split(".")[0] for n in q["expected"]}) for q in queries) / len(tasks), 3)
    return queries


# ---------------------------------------------------------------- mcp-zero

# MCP-Zero writes each parameter as "(<type>[, optional|required]) <description>".
ZERO_TYPES = {
    "string": "string", "str": "string", "number": "number", "float": "number", "int": "integer",
    "integer": "integer", "bool": "boolean", "boolean": "boolean", "array": "array", "list": "array",
    "object": "object", "dict": "object",
}


def zero_parameter(text, stats):
    """A JSON Schema property from "(type, optional) description", and whether it is marked required."""
    match = re.match(r"^\(([^)]*)\)\s*(.*)$", text, re.S)
    spec, description = (match.group(1), match.group(2)) if match else ("", text)
    words = re.findall(r"[a-z]+", spec.lower())
    types = [ZERO_TYPES[w] for w in words if w in ZERO_TYPES]
    prop = {}
    kind = "array" if spec.strip().endswith("[]") else (types[0] if types else None)
    if kind:
        prop["type"] = kind
        stats["parameters_typed"] += 1
    else:
        stats["parameters_untyped"] += 1
    if description.strip():
        prop["description"] = description.strip()
    required = "required" in words and "optional" not in words
    stats["parameters_required"] += required
    return prop, required


def zero_schema(parameters, stats):
    props, required = {}, []
    for name, text in parameters.items():
        props[name], is_required = zero_parameter(text, stats)
        if is_required:
            required.append(name)
    schema = {"type": "object", "properties": props}
    if required:
        schema["required"] = required
    return schema


def livemcp_zero_tools(live_servers, live_tools, corpus, stats):
    """LiveMCPBench's tools, then MCP-Zero's, a server both hold merged under LiveMCPBench's name."""
    by_repo = {repo: name for name, repo, _ in live_servers}
    live_names = {name for name, _, _ in live_servers}
    live_own = {(t["server"], t["serverTool"]) for t in live_tools}
    own = set(live_own)
    tools, names = list(live_tools), {t["name"] for t in live_tools}
    counts = Counter()
    merged = []
    for entry in corpus:
        server = SAME_SERVER.get(entry["name"]) or by_repo.get(repository(entry["url"]))
        if server:
            merged.append(f"{entry['name']} -> {server}")
        else:
            server = server_name(entry["name"])
            require(server not in live_names, f"MCP-Zero's {entry['name']!r} is named like LiveMCPBench's {server!r} but is another repository")
        for tool in entry["tools"]:
            if (server, tool["name"]) in own:
                counts["mcp_zero_tools_in_livemcp" if (server, tool["name"]) in live_own else "mcp_zero_duplicate_entries"] += 1
                continue
            record = tool_record(server, tool["name"], tool["description"], zero_schema(tool["parameter"], counts))
            require(record["name"] not in names, f"{record['name']}: two tools of {server} give that name")
            own.add((server, tool["name"]))
            names.add(record["name"])
            tools.append(record)
    stats["servers_merged"] = len(merged)
    stats["merged"] = "; ".join(merged)
    stats.update(counts)
    return tools


# ---------------------------------------------------------------- main


def write(out, name, records):
    shared.write_jsonl(os.path.join(out, name), records)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name, src in SOURCES.items():
        parser.add_argument(f"--{name}", metavar="DIR", help=f"checkout of {src['url']} at {src['commit'][:12]}, or a folder of its files (default: fetch them with git)")
    parser.add_argument("--out", metavar="DIR", required=True, help="where to write the three .jsonl files")
    opts = parser.parse_args()

    os.makedirs(opts.out, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="make-mcp-bench-data-") as tmp:
        roots = {}
        for name in SOURCES:
            given = getattr(opts, name.replace("-", "_"))
            if given:
                if os.path.exists(os.path.join(given, ".git")):
                    shared.check_commit(name, given, SOURCES)
                roots[name] = given
            else:
                roots[name] = shared.fetch_source(name, os.path.join(tmp, name), SOURCES)
        entries = read_json(roots["livemcpbench"], "tools/LiveMCPTool/tools.json")
        tasks = read_json(roots["livemcpbench"], "annotated_data/all_annotations.json")
        corpus = read_json(roots["mcp-zero"], "tests/data/mcp_tools_cleaned.json")

    live_stats, zero_stats = {}, {}
    servers = livemcp_servers(entries)
    tools = livemcp_tools(servers)
    require(len({t["name"] for t in tools}) == len(tools), "LiveMCPBench: two tools of one server share a name")
    queries = livemcp_queries(tasks, tools, live_stats)
    combined = livemcp_zero_tools(servers, tools, corpus, zero_stats)
    by_name = lambda r: r["name"]  # noqa: E731
    write(opts.out, "livemcp.tools.jsonl", sorted(tools, key=by_name))
    write(opts.out, "livemcp.queries.jsonl", sorted(queries, key=lambda r: r["id"]))
    write(opts.out, "livemcp-zero.tools.jsonl", sorted(combined, key=by_name))

    live_stats = {"tools": len(tools), "servers": len(servers), "tasks": len(queries), **live_stats}
    zero_entries = sum(len(e["tools"]) for e in corpus)
    zero_servers = len({t["server"] for t in combined})
    zero_stats = {"tools": len(combined), "servers": zero_servers, "mcp_zero_servers": len(corpus), "mcp_zero_entries": zero_entries, **zero_stats}
    print("livemcp: " + ", ".join(f"{k}: {v}" for k, v in live_stats.items()))
    print("livemcp-zero: " + ", ".join(f"{k}: {v}" for k, v in zero_stats.items()))

    return shared.check_all(opts.out, OUTPUTS)


if __name__ == "__main__":
    sys.exit(main())
