"""``workbench baseline bless RUN --name NAME [--dir DIR] [--rule RULE.toml] [--scorer NAME]
[--errors exclude|fail] [--force]`` and
``workbench baseline list [--dir DIR] [--json]``: the runs a gate holds new runs to.

``bless`` stores a byte-for-byte copy of the run's file with its SHA-256, the run's conventions
(file format, item and outcome columns, 0/1 or scores) under the reading it is blessed with
(``--scorer``, ``--errors``, recorded too), the time and the source path in
``DIR/NAME/`` (default ``.workbench/baselines`` next to the rule when ``--rule`` is given, else
in the current folder), written to a temporary folder and renamed into place.  An existing name
is refused unless ``--force``: a baseline never changes by itself.
"""

from __future__ import annotations

import argparse
import json

NAME = "baseline"


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        NAME, help="bless a run as the baseline a gate compares new runs with; list the baselines",
        description="Bless a run (its file copied with its SHA-256, conventions, time and source) as "
                    "a named baseline, or list the baselines of a folder. Compare a new run with one "
                    "using 'workbench gate RULE RUN --baseline NAME'.")
    sub = p.add_subparsers(dest="baseline_action", required=True, metavar="{bless,list}")
    b = sub.add_parser("bless", help="store a run as a named baseline",
                       description="Store RUN as baseline NAME; an existing name is refused unless --force.")
    b.add_argument("run", metavar="RUN", help="the run's per-item results file")
    b.add_argument("--name", required=True, help="the baseline's name (letters, digits, '.', '_', '-')")
    _dir(b)
    b.add_argument("--rule", metavar="RULE.toml",
                   help="the release rule: its [data] columns name the item and outcome, and the "
                        "default folder is next to it")
    b.add_argument("--sheet", help="XLSX sheet name (default: the first sheet)")
    b.add_argument("--scorer", metavar="NAME",
                   help="a log's scorer (or a column) whose values are the outcome (default: the "
                        "tool's primary scorer); recorded, and a gate reads both files with it "
                        "unless its --scorer or rule says otherwise")
    b.add_argument("--errors", choices=("exclude", "fail"),
                   help="errored records left out and counted (exclude, the default) or counted "
                        "as failures (fail); recorded like --scorer")
    b.add_argument("--force", action="store_true", help="replace an existing baseline of that name")
    b.add_argument("--json", action="store_true", help="print the stored record as JSON")
    ls = sub.add_parser("list", help="list the baselines of a folder",
                        description="List the baselines (name, time, SHA-256, items, source).")
    _dir(ls)
    ls.add_argument("--rule", metavar="RULE.toml", help="list the folder next to this rule")
    ls.add_argument("--json", action="store_true", help="print a JSON list")
    return p


def _dir(p) -> None:
    p.add_argument("--dir", metavar="DIR",
                   help="the baselines folder (default: .workbench/baselines next to --rule, else in "
                        "the current folder)")


def run(args: argparse.Namespace) -> int:
    from ..rules import baseline as bl

    folder = args.dir if args.dir is not None else bl.default_dir(args.rule)
    if args.baseline_action == "bless":
        data = None
        if args.rule is not None:
            from ..rules import load_rule

            data = load_rule(args.rule).data
        b = bl.bless(args.run, args.name, folder, force=args.force, data=data, rule=args.rule,
                     sheet=args.sheet, scorer=args.scorer, errors=args.errors)
        if args.json:
            print(json.dumps(b.to_json_dict(), indent=2, ensure_ascii=False))
        else:
            under = "".join(f", {k} {v}" for k, v in b.reading.items())
            print(f"Blessed '{args.run}' as baseline '{b.name}' in '{folder}': sha256 {b.sha256}, "
                  f"{_items(b)}{under}, {b.blessed_at}.")
        return 0
    found = bl.list_baselines(folder)
    broken = {b.name: bl.check_integrity(b) for b in found}
    if args.json:
        print(json.dumps({"folder": folder, "baselines": [
            {**b.to_json_dict(), "intact": broken[b.name] is None, "problem": broken[b.name]} for b in found]},
            indent=2, ensure_ascii=False))
        return 0
    if not found:
        print(f"No baselines in '{folder}' yet; bless one with 'workbench baseline bless RUN --name NAME'.")
        return 0
    print(f"baselines in {folder}:")
    width = max(len(b.name) for b in found)
    for b in found:
        under = "".join(f"  {k} {v}" for k, v in b.reading.items())
        print(f"  {b.name.ljust(width)}  {b.blessed_at}  sha256 {b.sha256[:12]}  {_items(b)}{under}  {b.source}"
              + (f"  UNRELIABLE: {broken[b.name]}" if broken[b.name] else ""))
    return 0


def _items(b) -> str:
    if b.n_items is not None:
        return f"{b.n_items:,} items"
    return f"{b.n_rows:,} rows"
