#!/usr/bin/env python
"""Write the Inspect logs of bench_table.py's ``inspect-log`` row, with inspect_ai itself.

Run with a Python that has inspect_ai (0.3.x; not the project's venv)::

    /tmp/iv/bin/python tests/benchmarks/make_inspect_bench_log.py OUT_FOLDER [--samples N]

An agent task of N samples (default 10,000) x 5 epochs, offline: ``use_tools`` + ``generate``
over four local tools, the model ``mockllm`` with a scripted function (no network).  Each
sample makes 1-3 tool calls in one or two turns (in some turns two calls in parallel), then
answers; the scorer is ``match``; each turn's usage (tokens and a cost) is scripted.  One model
(``mockllm/alpha``, its answers right about 70% of the time) or, with ``--models 2``, two (also
``mockllm/beta``, right about 60%), one ``.eval`` log each, written by inspect_ai's ``eval()`` into OUT_FOLDER (which must not hold
other logs).  Prints the seconds inspect_ai took as JSON.

Inspect's own run costs about 40 ms of CPU per sample and epoch (0.3.285, measured at nice 19
on a shared 2-core machine), so 10,000 samples x 5 epochs would take about 35 minutes per model:
bench_table.py's full size is 2,000 samples x 5 epochs, one model (about 7 minutes).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import sys
import tempfile
import time
import zlib

#: per sample number mod 4, the tool-call turns (each a list of tool names; two = parallel)
PLANS = ([["lookup"]], [["lookup", "policy"]], [["lookup"], ["refund", "close"]], [["policy"], ["close"]])
EPOCHS = 5
#: how often each model's answer is right
RIGHT = {"alpha": 0.7, "beta": 0.6}


def _sample_number(messages) -> int:
    first = next(m for m in messages if m.role == "user")
    return int(str(first.text).rsplit(" ", 1)[-1].rstrip("?"))


def scripted(name: str):
    """mockllm's output function: the turn is the number of assistant messages so far."""
    from inspect_ai.model import ChatMessageAssistant, ModelOutput, ModelUsage
    from inspect_ai.tool import ToolCall

    tries: dict[int, int] = {}

    def output(messages, tools, tool_choice, config):
        i = _sample_number(messages)
        turn = sum(m.role == "assistant" for m in messages)
        plan = PLANS[i % len(PLANS)]
        if turn < len(plan):
            calls = [ToolCall(id=f"{i}-{turn}-{j}", function=fn, arguments={"order": str(i)})
                     for j, fn in enumerate(plan[turn])]
            out = ModelOutput.from_message(ChatMessageAssistant(content="", tool_calls=calls,
                                                                model=f"mockllm/{name}"))
            out.usage = ModelUsage(input_tokens=100 + 10 * turn, output_tokens=20,
                                   total_tokens=120 + 10 * turn, total_cost=0.001)
            return out
        k = tries[i] = tries.get(i, 0) + 1  # this sample's k-th answer: a deterministic draw
        right = zlib.crc32(f"{name}:{i}:{k}".encode()) % 1000 < RIGHT[name] * 1000
        out = ModelOutput.from_content(f"mockllm/{name}", f"A{i}" if right else f"B{i}")
        out.usage = ModelUsage(input_tokens=150, output_tokens=5, total_tokens=155, total_cost=0.0005)
        return out

    return output


def make_tool(tool_name: str):
    from inspect_ai.tool import tool

    @tool(name=tool_name)
    def the_tool():
        async def execute(order: str = "") -> str:
            """A scripted tool.

            Args:
                order: an order number.
            """
            return f"{tool_name} ok for {order}"
        return execute
    return the_tool()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="the folder to write the .eval logs into")
    parser.add_argument("--samples", type=int, default=10_000, help="samples per model (default 10,000)")
    parser.add_argument("--models", type=int, choices=(1, 2), default=1,
                        help="1: mockllm/alpha (default); 2: also mockllm/beta (twice the time)")
    parser.add_argument("--max-samples", type=int, default=200, help="samples run at once (default 200)")
    args = parser.parse_args(argv)
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import get_model
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate, use_tools

    tools = [make_tool(n) for n in ("lookup", "policy", "refund", "close")]
    dataset = [Sample(id=f"s{i:05d}", input=f"What is the answer to question {i}?", target=f"A{i}")
               for i in range(args.samples)]
    os.makedirs(args.out, exist_ok=True)
    t = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        models = [get_model(f"mockllm/{name}", custom_outputs=scripted(name)) for name in list(RIGHT)[:args.models]]
        task = Task(dataset=dataset, solver=[use_tools(tools), generate()], scorer=match(), name="bench_agent")
        logs = eval(task, model=models, epochs=EPOCHS, log_dir=tmp, log_format="eval", display="none",
                    max_samples=args.max_samples, max_tasks=len(models), log_realtime=False,
                    score_display=False, log_buffer=1000)
        bad = [log.status for log in logs if log.status != "success"]
        if bad:
            raise SystemExit(f"inspect_ai's eval ended with status {bad}")
        seconds = time.perf_counter() - t
        for path in glob.glob(os.path.join(tmp, "*.eval")):
            shutil.move(path, os.path.join(args.out, os.path.basename(path)))
    print(json.dumps({"seconds": seconds, "samples": args.samples, "epochs": EPOCHS, "models": args.models}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
