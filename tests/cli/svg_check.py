#!/usr/bin/env python3
"""Checks an affix picture (affix(1), PICTURES) against the machine's JSON.

    svg_check.py machine SVG TOPO_JSON [--chosen LIST] [--dropped LIST] [--memory LIST]
                 [--allowed LIST] [--ran LIST] [--shield LIST] [--irq]
    svg_check.py timeline SVG [--tids LIST]

machine: the SVG parses as XML; every CPU of the JSON's "cpus" has exactly
one element id="cpu-N" (collapsed or not), every node one node-N, every
core index one core-N, every package one package-N, every device one
dev-NAME; no id twice; every element with an id has a <title>; each
collapsed run's data-cpus is exactly the CPUs of the cpu-N elements inside
it; the overlay classes are on exactly the CPUs (nodes for memory) given.
timeline: one thread-TID group per TID given, each with slots.
Prints what is wrong and exits 1.
"""
import json
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
errors = []


def cpulist(text):
    out = set()
    if not text or text == "none":
        return out
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-")
            out.update(range(int(a), int(b) + 1))
        else:
            out.add(int(part))
    return out


def classes(el):
    return set(el.get("class", "").split())


def check_machine(svg, topo, want):
    root = ET.parse(svg).getroot()
    ids = {}
    for el in root.iter():
        i = el.get("id")
        if i is None:
            continue
        if i in ids:
            errors.append(f"id {i} twice")
        ids[i] = el
        if el.find(NS + "title") is None:
            errors.append(f"{i}: no <title>")
    cpus = {c["cpu"] for c in topo["cpus"]}
    for c in cpus:
        if f"cpu-{c}" not in ids:
            errors.append(f"cpu-{c} missing")
    got = {int(i[4:]) for i in ids if i.startswith("cpu-")}
    if got - cpus:
        errors.append(f"cpu ids of no CPU: {sorted(got - cpus)}")
    for n in topo["nodes"]:
        if f"node-{n['node']}" not in ids:
            errors.append(f"node-{n['node']} missing")
    for c in topo["cpus"]:
        if c.get("core") is not None and c["online"] and f"core-{c['core']}" not in ids:
            errors.append(f"core-{c['core']} missing")
        if c.get("socket") is not None and c["online"] and f"package-{c['socket']}" not in ids:
            errors.append(f"package-{c['socket']} missing")
    for d in topo.get("devices", []):
        if f"dev-{d['name']}" not in ids:
            errors.append(f"dev-{d['name']} missing")
    # Collapsed runs: data-cpus lists the CPUs inside.
    for el in root.iter(NS + "g"):
        if "collapsed" not in classes(el):
            continue
        inside = {int(e.get("id")[4:]) for e in el.iter() if (e.get("id") or "").startswith("cpu-")}
        if inside != cpulist(el.get("data-cpus")):
            errors.append(f"collapsed run data-cpus={el.get('data-cpus')} holds {sorted(inside)}")
        if int(el.get("data-count", "0")) < 2:
            errors.append("a collapsed run of fewer than 2")
    # Overlay classes.
    for cls, expect in want.items():
        kind = "node-" if cls == "memory" else "cpu-"
        marked = {int(i[len(kind):]) for i, el in ids.items() if i.startswith(kind) and cls in classes(el)}
        if cls == "irq":
            counted = {i: el.get("data-count") for i, el in ids.items() if i.startswith("cpu-") and el.get("data-count")}
            if not counted:
                errors.append("irq: no CPU has a data-count")
            continue
        if marked != expect:
            errors.append(f"class {cls}: on {sorted(marked)}, expected {sorted(expect)}")
        for i, el in ids.items():
            if i.startswith(kind) and cls in classes(el) and cls == "dropped":
                t = el.find(NS + "title").text or ""
                if "dropped: " not in t:
                    errors.append(f"{i}: dropped without a reason in its title: {t!r}")
    if want and root.find(f".//{NS}g[@id='legend']") is None:
        errors.append("no legend")


def check_timeline(svg, tids):
    root = ET.parse(svg).getroot()
    for t in tids:
        g = root.find(f".//{NS}g[@id='thread-{t}']")
        if g is None:
            errors.append(f"thread-{t} missing")
            continue
        if not g.findall(f"{NS}rect[@class='slot']"):
            errors.append(f"thread-{t}: no slot")
    if root.find(f".//{NS}g[@id='legend']") is None:
        errors.append("no legend")


def main():
    mode, svg = sys.argv[1], sys.argv[2]
    args = sys.argv[3:]
    if mode == "machine":
        topo = json.load(open(args[0]))
        want = {}
        i = 1
        while i < len(args):
            name = args[i][2:]
            if name == "irq":
                want["irq"] = set()
                i += 1
                continue
            want[name] = cpulist(args[i + 1])
            i += 2
        check_machine(svg, topo, want)
    else:
        tids = cpulist(args[1]) if len(args) > 1 else set()
        check_timeline(svg, tids)
    for e in errors[:20]:
        print(f"{svg}: {e}", file=sys.stderr)
    sys.exit(1 if errors else 0)


main()
