#!/usr/bin/env python3
"""No module of any crate of the workspace imports, directly or through others, a module that
imports it back: each `crate::…` or `super::…` path a file names (code, or a doc link) is an edge
to the module it reaches, and every strongly connected group of more than one module is a cycle.
Unit-test modules at the end of a file are left out (they may import anything). Exits 1 naming
the cycles."""
import glob
import os
import re
import sys

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
# Every crate of the workspace, the black-box tests' support library among them.
CRATES = sorted(glob.glob("crates/*/src")) + ["tests/src"]
PATH = r"([a-z_][a-z0-9_]*(?:::[a-z_][a-z0-9_]*)*)"


def modules(root):
    found = {}
    for folder, _, files in os.walk(root):
        for name in files:
            if name.endswith(".rs"):
                path = os.path.join(folder, name)
                parts = os.path.relpath(path, root)[:-3].split(os.sep)
                if parts[-1] in ("mod", "lib", "main"):
                    parts = parts[:-1]
                found["::".join(parts)] = path
    return found


def edges(found):
    graph = {module: set() for module in found}
    for module, path in found.items():
        text = re.sub(r"#\[cfg\(test\)\]\s*mod tests \{.*", "", open(path, encoding="utf-8").read(), flags=re.S)
        parent = module.split("::")[:-1] if module else []
        named = set(re.findall(r"crate::" + PATH, text))
        named |= {"::".join(parent + p.split("::")) for p in re.findall(r"super::" + PATH, text)}
        for target in named:
            parts = target.split("::")
            for k in range(len(parts), 0, -1):
                candidate = "::".join(parts[:k])
                if candidate in found:
                    if candidate != module:
                        graph[module].add(candidate)
                    break
    return graph


def cycles(graph):
    index, low, stack, on_stack, groups, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return groups


failed = False
for root in CRATES:
    found = modules(root)
    if not found:
        failed = True
        print(f"{root}: nenhum módulo encontrado (caminho errado?)", file=sys.stderr)
    for group in cycles(edges(found)):
        failed = True
        print(f"{root}: ciclo de importação entre módulos: {', '.join(group)}", file=sys.stderr)
if failed:
    sys.exit(1)
print("módulos: nenhum ciclo de importação em " + " e ".join(CRATES))
