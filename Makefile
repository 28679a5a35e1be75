# The two commands of the README, and a few more.  Each sets itself up first.
SHELL := /bin/bash
PY := .venv/bin/python
EXAMPLES := resources/examples

.PHONY: setup demo gui test lint bench clean package

setup:
	@bash packaging/dev-setup.sh

## demo: the workbench's analyses on the bundled examples (the seed's worked cases)
demo: setup
	@for args in \
	  "compare $(EXAMPLES)/paired_14_to_5.csv --baseline baseline --candidate candidate --item item_id" \
	  "ranking $(EXAMPLES)/ranking_seed.csv --k 3,5" \
	  "passk $(EXAMPLES)/passk_counts.csv --k 1,3,5" \
	  "aggregate $(EXAMPLES)/multilingual.csv --outcome correct --group language" \
	  "aggregate $(EXAMPLES)/simpson.csv --outcome correct --group segment --version version" \
	  "cost $(EXAMPLES)/cost_latency.csv --system system --success success --cost cost --latency latency_s" \
	  "text $(EXAMPLES)/text_extraction.csv" \
	  "plan --rate 0.8 --n 100 --discordance 0.15"; do \
	  echo "\$$ workbench $$args"; .venv/bin/workbench $$args || exit $$?; echo; done
	@mkdir -p out
	@echo "\$$ workbench gate resources/rules/seed_14_to_5.toml $(EXAMPLES)/paired_14_to_5.csv --xlsx out/demo-gate.xlsx"
	@.venv/bin/workbench gate resources/rules/seed_14_to_5.toml $(EXAMPLES)/paired_14_to_5.csv --xlsx out/demo-gate.xlsx; \
	  echo "(exit status $$?: 0 PASS, 1 FAIL, 3 INCONCLUSIVE)"
	@echo; echo "Excel report of the decision card: out/demo-gate.xlsx.  The desktop workbench: make gui"

## gui: the desktop workbench on the 14-to-5 example (needs a display)
gui: setup
	.venv/bin/workbench $(EXAMPLES)/paired_14_to_5.csv

## test: the whole test suite (GUI tests run offscreen), then again without pyarrow as in the
## standalone bundle (pandas' Python-backed text, Parquet through fastparquet): every test that
## is not a GUI test, and the GUI tests that open files and show their cells (every real tool's
## file, the formats, the window, the data view's model); the packaging test runs when
## PyInstaller is installed (`make package` or .ci/run install it)
## without pyarrow (as in the standalone bundle) the tests of what reads, stacks and writes files
## run again: the pure computations (cross-checks against the reference libraries, cards) do not
## depend on pyarrow and run once
NO_PYARROW_TESTS = tests/io tests/report tests/rules tests/test_reading_real_tools.py tests/test_cli.py \
	tests/test_cli_fuzz.py tests/test_csv_rows_are_lines.py tests/test_id_match.py tests/test_stacked_exact_ids.py \
	tests/test_items_export.py tests/test_engines.py tests/test_launcher.py tests/test_seed_examples.py \
	tests/test_analyses.py tests/test_qrels_columns.py tests/test_run_files.py tests/test_ranking_layouts.py \
	tests/test_readme.py tests/test_conventions_cli.py tests/test_slices_cli.py tests/test_judge.py \
	tests/test_atomic_writes.py tests/test_messages.py tests/test_catalog.py
NO_PYARROW_GUI = tests/ui/test_ui_first_contact.py tests/ui/test_ui_formats.py tests/ui/test_ui_window.py tests/ui/test_ui_models.py tests/ui/test_ui_formats46.py
## the tests run in TEST_WORKERS processes (pytest-xdist; one per core, at most 4: each may start
## Qt and a Spark JVM), a worker taking tests left to another when it is done with its own
## (`make test TEST_WORKERS=1` for one process)
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ "$$n" -gt 4 ] && n=4; echo $$n)
XDIST = -n $(TEST_WORKERS) --dist worksteal
test: setup
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q $(XDIST)
	@echo "-- without pyarrow, as in the standalone bundle: the tests of reading, stacking and writing files, then the GUI tests that open files --"
	QT_QPA_PLATFORM=offscreen PYTHONPATH=$(CURDIR)/tests/without_pyarrow $(PY) -m pytest -q -p no:cacheprovider $(XDIST) -m "not gui" $(NO_PYARROW_TESTS)
	QT_QPA_PLATFORM=offscreen PYTHONPATH=$(CURDIR)/tests/without_pyarrow $(PY) -m pytest -q -p no:cacheprovider $(XDIST) $(NO_PYARROW_GUI)

lint: setup
	.venv/bin/lint-imports

## bench: issue 13's table (each row against its reference, values checked), then the
## engine benchmark of issue 2; BENCH_ARGS=--quick for a smoke run
bench: setup
	$(PY) tests/benchmarks/bench_table.py $(BENCH_ARGS)
	$(PY) tests/benchmarks/bench_engine.py $(BENCH_ARGS)
	$(PY) tests/benchmarks/bench_paired.py $(BENCH_ARGS)
	$(PY) tests/benchmarks/bench_analyses.py $(BENCH_ARGS)
	$(PY) tests/benchmarks/bench_conventions.py $(BENCH_ARGS)
	$(PY) tests/benchmarks/bench_slices.py $(BENCH_ARGS)
	QT_QPA_PLATFORM=offscreen $(PY) tests/benchmarks/bench_gui.py $(BENCH_ARGS)
	QT_QPA_PLATFORM=offscreen $(PY) tests/benchmarks/bench_window.py $(BENCH_ARGS)

## package: the standalone bundle (PyInstaller), its self-test and the .deb, in dist/
package: setup
	@WORKBENCH_PACKAGE=1 bash packaging/dev-setup.sh
	$(PY) packaging/build.py --deb

clean:
	rm -rf .venv .pytest_cache .hypothesis build dist *.egg-info
