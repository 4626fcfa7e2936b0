#!/usr/bin/env python3
"""Writes a CycloneDX 1.5 SBOM (JSON) and a crate licence list for the devcoach binary.

Usage: sbom.py TARGET_TRIPLE SBOM_OUT LICENSES_OUT

Reads `cargo metadata` for the locked dependency graph on that target and keeps what the
binary is built from: the `devcoach` package and everything it reaches through normal (and
build) dependencies; dev-dependencies are left out. Output is deterministic for a given
Cargo.lock, so two builds of one release give the same files.
"""
import json
import subprocess
import sys
import uuid


def main() -> None:
    target, sbom_out, licenses_out = sys.argv[1:4]
    meta = json.loads(
        subprocess.check_output(
            ["cargo", "metadata", "--format-version", "1", "--locked", "--filter-platform", target]
        )
    )
    packages = {p["id"]: p for p in meta["packages"]}
    nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
    root = next(p["id"] for p in meta["packages"] if p["name"] == "devcoach" and p["source"] is None)

    def shipped_deps(node_id):
        for dep in nodes[node_id]["deps"]:
            kinds = {k["kind"] for k in dep["dep_kinds"]}
            if kinds - {"dev"}:
                yield dep["pkg"]

    seen, stack = set(), [root]
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        stack.extend(shipped_deps(current))

    def purl(p):
        return f"pkg:cargo/{p['name']}@{p['version']}"

    def component(p, kind="library"):
        c = {"type": kind, "bom-ref": purl(p), "name": p["name"], "version": p["version"], "purl": purl(p)}
        if p.get("license"):
            c["licenses"] = [{"expression": p["license"]}]
        if p.get("repository"):
            c["externalReferences"] = [{"type": "vcs", "url": p["repository"]}]
        return c

    ours = packages[root]
    others = sorted((packages[i] for i in seen if i != root), key=lambda p: (p["name"], p["version"]))
    bom = {
        "bomFormat": "CycloneDX",
        "specVersion": "1.5",
        "serialNumber": f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, purl(ours) + '/' + target)}",
        "version": 1,
        "metadata": {
            "component": component(ours, "application"),
            "properties": [{"name": "cdx:rust:target", "value": target}],
        },
        "components": [component(p) for p in others],
        "dependencies": [
            {"ref": purl(packages[i]), "dependsOn": sorted({purl(packages[d]) for d in shipped_deps(i)})}
            for i in sorted(seen, key=lambda i: purl(packages[i]))
        ],
    }
    with open(sbom_out, "w") as f:
        json.dump(bom, f, indent=1)
        f.write("\n")
    with open(licenses_out, "w") as f:
        f.write(f"# Crates compiled into devcoach {ours['version']} ({target})\n\n")
        f.write("| crate | version | licence | source |\n|---|---|---|---|\n")
        for p in others:
            f.write(f"| {p['name']} | {p['version']} | {p.get('license') or 'see crate'} | {p.get('repository') or ''} |\n")


if __name__ == "__main__":
    main()
