"""What a promptfoo results file holds, declared for the workbench (:mod:`workbench.io.
evaluation`): items are test cases (with ``--repeat``, the rows of one provider with the same
description and vars are one test case's tries: promptfoo writes no repeat index), the systems
are the providers (their labels), and the scorers are promptfoo's own: the test's pass (every
assertion passed, or the test's threshold met: promptfoo's decision), its score (the weighted
mean of the assertions' scores), each named score, and each assertion's pass with its weight,
graded by an LLM (``llm-rubric``, ``model-graded-*``) or by code."""

from __future__ import annotations

import pandas as pd

from workbench.io.evaluation import BINARY, CODE, JUDGE, SCORE, Evaluation, Run, Scorer

#: promptfoo's assertion types graded by a model.
_MODEL_GRADED = ("llm-rubric", "model-graded", "factuality", "g-eval", "answer-relevance",
                 "context-", "closed-qa", "select-best", "classifier", "moderation")


def _graded_by_model(kind: str) -> bool:
    return any(str(kind).startswith(p) for p in _MODEL_GRADED)


def declare(value: dict, rows: list[dict], frame: pd.DataFrame, weights: dict[str, list], path: str,
            repeats: bool) -> Evaluation:
    """The evaluation of one promptfoo results file (``weights``: each assertion's weights as
    the reader collected them)."""
    types = {}
    for r in rows:
        for part in (r.get("gradingResult") or {}).get("componentResults") or []:
            assertion = part.get("assertion") if isinstance(part, dict) else None
            if isinstance(assertion, dict):
                key = str(assertion.get("metric") or assertion.get("type") or "assertion")
                types.setdefault(key, str(assertion.get("type") or ""))
    judged = any(_graded_by_model(t) for t in types.values())
    kind = JUDGE if judged else CODE
    graders = sorted({str(((r.get("testCase") or {}).get("options") or {}).get("provider") or "")
                      for r in rows} - {""})
    reported = _reported(value)
    scorers = [Scorer("pass", "success", kind=kind, scale=BINARY,
                      metric=f"pass rate {reported}" if reported else None,
                      detail="promptfoo's own decision: every assertion passed, or the test's "
                             "threshold met" + (f"; graded by {', '.join(graders)}" if graders else ""),
                      models=tuple(graders))]
    if "score" in frame.columns:
        listed = ", ".join(f"{k} {w[0]:g}" for k, w in weights.items() if w)
        scorers.append(Scorer("score", "score", kind=kind, scale=SCORE,
                              detail="the weighted mean of the assertions' scores"
                                     + (f" (weights {listed})" if listed else "")))
    for col in frame.columns:
        if str(col).startswith("named."):
            name = str(col)[len("named."):]
            scorers.append(Scorer(name, str(col), kind=JUDGE if _graded_by_model(types.get(name, "")) else CODE,
                                  scale=SCORE, detail="promptfoo's named score"))
    for col in frame.columns:
        if str(col).startswith("assert."):
            name = str(col)[len("assert."):]
            w = weights.get(name) or [1.0]
            scorers.append(Scorer(f"assert.{name}", str(col),
                                  kind=JUDGE if _graded_by_model(types.get(name, "")) else CODE,
                                  scale=BINARY, weight=float(w[0]) if len(w) == 1 else None,
                                  group="assertions", detail=f"assertion '{types.get(name, name)}'"
                                  + (f", weight {w[0]:g}" if len(w) == 1 else
                                     f", weights {', '.join(f'{x:g}' for x in w)} (differ between tests)")))
    config = value.get("config") or {}
    providers = list(dict.fromkeys(frame["provider"])) if "provider" in frame.columns else []
    ids = {str(p.get("label") or p.get("id")): str(p.get("id") or "") for p in config.get("providers") or []
           if isinstance(p, dict)}
    runs = tuple(Run(str(p), {"provider": str(p), **({"id": ids[str(p)]} if ids.get(str(p)) else {}),
                              "tool": "promptfoo", "file": path}) for p in providers)
    usage = {k: c for k, c in (("cost", "cost"), ("latency", "latency_ms"), ("input_tokens", "tokens_prompt"),
                               ("output_tokens", "tokens_completion"), ("total_tokens", "tokens_total"))
             if c in frame.columns and pd.to_numeric(frame[c], errors="coerce").notna().any()}
    return Evaluation(
        tool="promptfoo", tool_version=(str(value["results"].get("version") or "") or None)
        if isinstance(value.get("results"), dict) else None,
        item="test_case" if repeats else "item", repeat="repeat" if repeats else None,
        repeat_source="--repeat (rows with identical vars)" if repeats else "", reduction="mean",
        system="provider", runs=runs, scorers=tuple(scorers), primary="pass",
        error="error" if "error" in frame.columns else None, usage=usage,
        metadata=tuple(c for c in frame.columns if str(c).startswith("vars.")),
        notes=(("promptfoo's own pass rate counts errors as failures (its denominator is every test: "
                f"{reported}); the workbench leaves errors out by default (--errors fail counts them)."
                if reported and "error" in frame.columns else ""),))


def _reported(value: dict) -> str:
    """promptfoo's pass rate per provider as its table shows it: passes / (passes + fails +
    errors)."""
    parts = []
    results = value.get("results")
    for prompt in (results.get("prompts") or [] if isinstance(results, dict) else []):
        metrics = prompt.get("metrics") if isinstance(prompt, dict) else None
        if not isinstance(metrics, dict):
            continue
        p, f, e = (int(metrics.get(k) or 0) for k in ("testPassCount", "testFailCount", "testErrorCount"))
        if p + f + e:
            parts.append(f"{prompt.get('provider')}: {p}/{p + f + e} = {p / (p + f + e):.4g}"
                         + (f" ({e} errors counted as failures)" if e else ""))
    return "; ".join(parts)


__all__ = ["declare"]
