#!/usr/bin/env python3
"""Check nvq's layering: the top-level modules of src/ form no cycle, each
uses only the modules its layer allows (ARCHITECTURE.md, "Layers"), no
line of src/ is longer than 120 characters unless it holds a string literal,
every `unsafe` block has a `// SAFETY:` comment (an `unsafe fn` a `# Safety`
section), and only the raw NVML layer (src/nvml/raw/) touches NVML's
symbol table.

Reads every `crate::<module>` path in src/ (comments and doc comments
excluded; `#[cfg(test)]` code included: tests may not bend the layers
either). Exit 1 with one line per violation.
"""
import collections
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")

# What each top-level module may use. The lowest layer first.
ALLOWED = {
    "model": set(),
    "error": {"model"},
    "nvml": {"model", "error"},
    "source": {"model", "error", "nvml"},
    "render": {"model", "error"},
    "output": {"model", "error"},
    "schedule": {"model", "error", "render", "output"},
    "script": {"model", "error", "source", "render"},
    "serve": {"model", "error", "nvml", "source", "render", "schedule"},
    "tui": {"model", "error", "render"},
    "cli": {"model", "error", "nvml", "source", "render", "script"},
    "app": {
        "model", "error", "nvml", "source", "render", "output", "schedule", "script", "cli", "serve", "tui",
    },
    "lib": None,  # the crate root declares the modules
    "main": None,
}

MAX_LINE = 120


def top_module(path):
    rel = os.path.relpath(path, ROOT)
    first = rel.split(os.sep)[0]
    return first[:-3] if first.endswith(".rs") else first


def string_lines(text):
    """The numbers (1-based) of the lines that hold part of a string literal."""
    lines = set()
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i)
            j = n if j < 0 else j + 2
            line += text.count("\n", i, j)
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 80]) and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            start = i + len(hashes) + 2
            j = text.find('"' + hashes, start)
            j = n if j < 0 else j + 1 + len(hashes)
            lines.update(range(line, line + text.count("\n", i, j) + 1))
            line += text.count("\n", i, j)
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
            lines.update(range(line, line + text.count("\n", i, j) + 1))
            line += text.count("\n", i, j)
            i = j
        elif c == "'" and (text.startswith("\\", i + 1) or text[i + 2:i + 3] == "'"):
            j = text.find("'", i + 2 if text[i + 1] != "\\" else i + 3)
            i = n if j < 0 else j + 1
        else:
            i += 1
    return lines


def code_lines(text):
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        if stripped.startswith("//"):
            continue
        yield n, line


def main():
    edges = collections.defaultdict(set)
    problems = []
    for dirpath, _, files in os.walk(ROOT):
        for name in sorted(files):
            if not name.endswith(".rs"):
                continue
            path = os.path.join(dirpath, name)
            mod = top_module(path)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            rel = os.path.relpath(path, os.path.join(ROOT, ".."))
            strings = string_lines(text)
            for n, line in enumerate(text.splitlines(), 1):
                if len(line) > MAX_LINE and n not in strings:
                    problems.append(f"{rel}:{n}: line of {len(line)} characters (limit {MAX_LINE})")
            lines = text.splitlines()
            for n, line in enumerate(lines, 1):
                if n in strings or line.lstrip().startswith("//"):
                    continue
                if re.search(r"\bunsafe\s*\{", line):
                    before = "\n".join(lines[max(0, n - 8):n])
                    if "SAFETY:" not in before:
                        problems.append(f"{rel}:{n}: `unsafe` block without a `// SAFETY:` comment above it")
                if re.search(r"\bunsafe\s+(extern\s+\"C\"\s+)?fn\s+\w", line):
                    before = "\n".join(lines[max(0, n - 15):n])
                    if "# Safety" not in before:
                        problems.append(f"{rel}:{n}: `unsafe fn` without a `# Safety` section in its docs")
                if re.search(r"\.lib\(\)\.|\.lib\(\)$|NvmlLib::new", line) and not rel.startswith(os.path.join("src", "nvml", "raw") + os.sep) and "self.nvml.lib()" not in line:
                    problems.append(f"{rel}:{n}: NVML symbol table used outside src/nvml/raw/")
            for n, line in code_lines(text):
                for used in re.findall(r"\bcrate::([a-z_][a-z0-9_]*)", line):
                    if used == mod or used in ("Personality", "ExitCode", "NvqError"):
                        continue
                    edges[mod].add(used)
                    allowed = ALLOWED.get(mod, set())
                    if allowed is not None and used not in allowed:
                        problems.append(f"{rel}:{n}: `{mod}` uses `{used}`, which its layer may not use")
            if mod not in ALLOWED:
                problems.append(f"{rel}: module `{mod}` has no layer in scripts/check-layers.py")
    # Cycles, whatever the table says.
    state = {}

    def visit(m, stack):
        state[m] = 1
        for d in sorted(edges.get(m, ())):
            if state.get(d) == 1:
                cyc = stack[stack.index(d):] + [d] if d in stack else [m, d]
                problems.append("cycle: " + " -> ".join(cyc))
            elif d not in state:
                visit(d, stack + [d])
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m, [m])
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"layers: {len(edges)} modules, no cycle, every use allowed, no line over {MAX_LINE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
