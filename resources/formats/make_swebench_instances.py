"""Write swebench_instances.json: the instance ids of SWE-bench's test splits, from the harness's own
summary reports of gold runs over each whole split, as the SWE-bench/SWE-bench repository tracked them
until commit 214e9d3 (removed there; read at its parent ebb22a0fd17dd3559b4fb3bf791c3f8c5bba8701):
``gold.fresh-verified.json`` (SWE-bench Verified, 500), ``gold.seaborn-gold.json`` (SWE-bench, full
test split, 2294) and ``gold.jest-gold.json`` (SWE-bench Multilingual, 300): their ``submitted_ids``.

The results.json of the swe-bench/experiments submissions lists only the resolved, the empty
patches and the unevaluated: the unresolved are the rest of the split, named from these lists.

Run with a checkout (or bare mirror) of SWE-bench/SWE-bench:
    python resources/formats/make_swebench_instances.py /path/to/SWE-bench"""

import json
import os
import subprocess
import sys

COMMIT = "ebb22a0fd17dd3559b4fb3bf791c3f8c5bba8701"
FILES = {"verified": "gold.fresh-verified.json", "test": "gold.seaborn-gold.json",
         "multilingual": "gold.jest-gold.json"}


def main(repo: str) -> None:
    splits = {}
    for split, name in FILES.items():
        text = subprocess.run(["git", "-C", repo, "show", f"{COMMIT}:{name}"], check=True,
                              capture_output=True, text=True).stdout
        report = json.loads(text)
        assert report["total_instances"] == len(report["submitted_ids"]), name
        splits[split] = sorted(report["submitted_ids"])
    out = {"source": f"SWE-bench/SWE-bench {COMMIT}: " + ", ".join(f"{s} <- {n} submitted_ids" for s, n in FILES.items()),
           "sizes": {s: len(v) for s, v in splits.items()} | {"lite": 300}, "splits": splits}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "swebench_instances.json")
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(out, fh, separators=(",", ":"))
        fh.write("\n")
    print({s: len(v) for s, v in splits.items()}, "->", path)


if __name__ == "__main__":
    main(sys.argv[1])
