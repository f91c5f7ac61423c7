"""The report of ``bench_multilabel.py``: tables of times and speed-ups, the floors and the
targets, as text or as the Markdown section of ``docs/benchmarks.md``."""

from __future__ import annotations

from pathlib import Path

from _multilabel_cases import BENCHMARKS, LIBRARIES, TITLES

DOC = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"
START, END = "<!-- bench_multilabel:start -->", "<!-- bench_multilabel:end -->"


# ---- report --------------------------------------------------------------------------------------
def fmt_time(seconds):
    """Seconds with three significant digits."""
    if seconds is None:
        return "—"
    return f"{seconds:.3g}" if seconds < 1000 else f"{seconds:.0f}"


def fmt(value, spec):
    """``format(value, spec)``, or a dash for None."""
    return "—" if value is None else format(value, spec)


def table_rows(results, benchmark):
    """Header and rows (lists of strings) of one benchmark's table."""
    header = ["data", "library", "fit s", "predict s", "fit+predict s", "x mlnb time", "runs"]
    header += ["CPU s", "x mlnb CPU"]
    header += ["peak MiB", "micro F1", "macro F1", "samples F1"]
    if benchmark == "br":
        header.append("max |ΔP|")
    rows = []
    for dataset in results["data"]:
        ours = results["cases"].get(f"{dataset}/{benchmark}/mlnb")
        libraries = [*results["libraries"], "floor"]
        for library in libraries:
            case = results["cases"].get(f"{dataset}/{benchmark}/{library}")
            if case is None:
                continue
            if "error" in case:
                rows.append(
                    [dataset, library, f"failed: {case['error']}"] + [""] * (len(header) - 3)
                )
                continue
            total = case["fit"] + case["predict"]
            ratio = None if ours is None else total / (ours["fit"] + ours["predict"])
            name = floor_name(benchmark, case) if library == "floor" else library
            row = [dataset, name, fmt_time(case["fit"]), fmt_time(case["predict"])]
            row += [fmt_time(total), fmt(ratio, ".3g"), str(case["runs"])]
            cpu_ratio = None
            if ours is not None and ours.get("cpu") and case.get("cpu") is not None:
                cpu_ratio = case["cpu"] / ours["cpu"]
            row += [fmt_time(case.get("cpu")), fmt(cpu_ratio, ".3g")]
            row += [fmt(case.get("peak_mib"), ".1f")]
            row += [fmt(case.get(key), ".4f") for key in ("f1_micro", "f1_macro", "f1_samples")]
            if benchmark == "br":
                row.append(fmt(case.get("max_dp"), ".1e"))
            rows.append(row)
    return header, rows


def floor_name(benchmark, case):
    """The floor's row name: what it times."""
    if benchmark == "br":
        return f"floor ({case['form']} + X_test @ W.T)"
    chains = "10 chains" if benchmark == "ecc" else "1 chain"
    return f"floor ({case['form']} + log; feature products + chain steps, {chains})"


def speedup(results, dataset, benchmark, library, part="total", cpu=False):
    """How many times faster mlnb is than ``library`` (``part``: total, fit or predict);
    with ``cpu``, in CPU time (total or predict only; None where not measured)."""
    ours = results["cases"].get(f"{dataset}/{benchmark}/mlnb")
    theirs = results["cases"].get(f"{dataset}/{benchmark}/{library}")
    if not ours or not theirs or "error" in ours or "error" in theirs:
        return None

    def seconds(case):
        if cpu:
            return case.get({"total": "cpu", "predict": "cpu_predict"}.get(part, ""))
        return case["fit"] + case["predict"] if part == "total" else case[part]

    if not seconds(ours) or not seconds(theirs):
        return None
    return seconds(theirs) / seconds(ours)


def targets(results):
    """(target, data set, measured, met) rows of the issue's targets.

    ``met`` is None where the issue sets no target (BR speed and floor: delicious only).
    """
    rows = []
    cases = results["cases"]
    for dataset in results["data"]:
        for benchmark, part, goal in (
            ("br", "total", 30),
            ("cc", "predict", 50),
            ("ecc", "total", 100),
        ):
            value = speedup(results, dataset, benchmark, "sklearn", part)
            if value is not None:
                what = "fit+predict" if part == "total" else part
                label = f"{benchmark.upper()} {what} ≥ {goal}x faster than scikit-learn"
                met = value >= goal if benchmark != "br" or dataset == "delicious" else None
                cpu = speedup(results, dataset, benchmark, "sklearn", part, cpu=True)
                measured = f"{value:.1f}x" + ("" if cpu is None else f" (CPU {cpu:.1f}x)")
                rows.append((label, dataset, measured, met))
        ours, floor = cases.get(f"{dataset}/br/mlnb"), cases.get(f"{dataset}/br/floor")
        if ours and floor and "error" not in ours and "error" not in floor:
            ratio = (ours["fit"] + ours["predict"]) / (floor["fit"] + floor["predict"])
            met = ratio <= 3 if dataset == "delicious" else None
            rows.append(("BR within 3x of the floor", dataset, f"{ratio:.2f}x", met))
        for benchmark, part, goal in (("cc", "predict", 50), ("ecc", "total", 100)):
            rows += floor_rows(cases, dataset, benchmark, part, goal)
        for benchmark in BENCHMARKS:
            ours = cases.get(f"{dataset}/{benchmark}/mlnb") or {}
            theirs = cases.get(f"{dataset}/{benchmark}/sklearn") or {}
            if ours.get("peak_mib") is not None and theirs.get("peak_mib") is not None:
                rows.append(
                    (
                        f"{benchmark.upper()} peak memory ≤ scikit-learn's",
                        dataset,
                        f"{ours['peak_mib']:.1f} vs {theirs['peak_mib']:.1f} MiB",
                        ours["peak_mib"] <= theirs["peak_mib"],
                    )
                )
        theirs = cases.get(f"{dataset}/br/sklearn") or {}
        if "max_dp" in theirs:
            ours = cases[f"{dataset}/br/mlnb"]
            same = all(
                abs(ours[key] - theirs[key]) < 1e-12
                for key in ("f1_micro", "f1_macro", "f1_samples")
            )
            rows.append(
                (
                    "BR equal to scikit-learn (F1s; max |ΔP|)",
                    dataset,
                    f"{'same F1' if same else 'F1 differ'}; {theirs['max_dp']:.1e}",
                    same and theirs["max_dp"] < 1e-6,
                )
            )
    # The delicious-only targets of the issue come first.
    rows.sort(key=lambda row: (row[1] != "delicious", row[0]))
    return rows


def floor_rows(cases, dataset, benchmark, part, goal):
    """Rows on a chain benchmark's floor: mlnb / floor, and whether the goal is reachable.

    A goal of "g times faster than scikit-learn" is out of reach of any implementation
    when scikit-learn's time is less than g times the floor's. Both are given in wall and
    in CPU time (best runs); the verdict follows the CPU time, which other processes on
    the machine disturb less than the wall time of scikit-learn's few long runs.
    """

    def seconds(case, cpu=False):
        if cpu:
            return case.get("cpu") if part == "total" else case.get("cpu_predict")
        return case["fit"] + case["predict"] if part == "total" else case[part]

    def ratio(a, b):
        wall = seconds(a) / seconds(b)
        cpu = seconds(a, True) / seconds(b, True) if seconds(a, True) and seconds(b, True) else None
        return wall, cpu

    ours, theirs = (cases.get(f"{dataset}/{benchmark}/{library}") for library in LIBRARIES[:2])
    floor = cases.get(f"{dataset}/{benchmark}/floor")
    if floor is None or "error" in floor:
        return []
    what = "fit+predict" if part == "total" else part
    rows = []
    if ours and "error" not in ours:
        wall, cpu = ratio(ours, floor)
        measured = f"{wall:.2f}x wall, {fmt(cpu, '.2f')}x CPU"
        rows.append((f"{benchmark.upper()} {what}: mlnb / floor", dataset, measured, "info"))
    if theirs and "error" not in theirs:
        wall, cpu = ratio(theirs, floor)
        measured = f"{wall:.1f}x wall, {fmt(cpu, '.1f')}x CPU"
        verdict = cpu if cpu is not None else wall
        rows.append(
            (
                f"{benchmark.upper()} {what} ≥ {goal}x: reachable (scikit-learn / floor ≥ {goal})",
                dataset,
                measured,
                "reachable" if verdict >= goal else "unreachable",
            )
        )
    return rows


def text_table(header, rows):
    """A plain-text table with aligned columns."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows, strict=True)]
    return "\n".join(
        "  ".join(str(cell).ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        for line in [header, *rows]
    )


def markdown_table(header, rows):
    """A GitHub-flavoured markdown table (``|`` inside a cell escaped)."""

    def line(cells):
        return "| " + " | ".join(str(cell).replace("|", "\\|") for cell in cells) + " |"

    return "\n".join([line(header), "|" + "---|" * len(header), *(line(row) for row in rows)])


def report(results, render):
    """The whole report (data, one table per benchmark, targets) with a table renderer."""
    machine = results["machine"]
    versions = ", ".join(f"{name} {v}" for name, v in machine["versions"].items())
    parts = [
        f"Run: {machine['date']}; {machine['cpu']}, {machine['cores']} cores, "
        f"{machine['memory']} memory; load average (1, 5, 15 min) {machine['load']} at start, "
        f"{machine.get('load_end', '?')} at the end{load_range(results)}.",
        f"Versions: {versions} (commit {machine.get('commit', '?')}). BLAS: {machine['blas']}"
        + blas_limit(machine),
        "Times: best of the repeats (see `runs`), wall seconds; x mlnb time: fit+predict of "
        "the library / mlnb's. CPU s: best process CPU time of one fit+predict (all threads; "
        "less sensitive than wall time to other processes on the machine). Peak: resident "
        "memory above the pre-fit baseline, first fit + predict, own process."
        + (" QUICK RUN (rows subsampled): indicative only." if results["quick"] else ""),
    ]
    header = ["data", "train", "test", "features", "labels", "X", "labels constant in train"]
    rows = [
        [name, d["train"], d["test"], d["features"], d["labels"], d["kind"], d["constant_labels"]]
        for name, d in results["data"].items()
    ]
    sections = [("Data", render(header, rows))]
    benchmarks = sorted({key.split("/")[1] for key in results["cases"]}, key=BENCHMARKS.index)
    for benchmark in benchmarks:
        sections.append((TITLES[benchmark], render(*table_rows(results, benchmark))))
    status = {
        True: "met",
        False: "MISSED",
        None: "(no target: set for delicious)",
        "info": "(no target)",
        "reachable": "reachable",
        "unreachable": "UNREACHABLE: even the floor is too slow",
    }
    rows = [(t, d, m, status[ok]) for t, d, m, ok in targets(results)]
    sections.append(("Targets", render(["target", "data", "measured", "status"], rows)))
    return parts, sections


def blas_limit(machine):
    """The end of the report's BLAS sentence: the thread limit of the cases, if any."""
    if machine.get("blas_threads"):
        return f"; limited to {machine['blas_threads']} thread(s) in every case (--blas-threads)."
    return "."


def load_range(results):
    """ ", 1-min load average a to b after the cases" (other processes share the 2 cores)."""
    loads = [case["load"] for case in results["cases"].values() if "load" in case]
    if not loads:
        return ""
    return f", {min(loads):.1f} to {max(loads):.1f} after the cases"


def print_report(results):
    """Print the report as plain text."""
    parts, sections = report(results, text_table)
    print("\n".join(parts))
    for title, body in sections:
        print(f"\n{title}\n{body}")


def write_markdown(results, path=DOC):
    """Write the report between the markers of ``path``, keeping the text around them."""
    parts, sections = report(results, markdown_table)
    body = "\n\n".join(parts)
    for title, table in sections:
        body += f"\n\n### {title}\n\n{table}"
    command = "python benchmarks/bench_multilabel.py --markdown"
    block = (
        f"{START}\n<!-- generated by `{command}`; edit outside the markers -->\n\n{body}\n\n{END}"
    )
    if path.exists():
        text = path.read_text()
        if START in text and END in text:
            head, rest = text.split(START, 1)
            text = head + block + rest.split(END, 1)[1]
        else:
            text = text.rstrip() + "\n\n" + block + "\n"
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = f"# Benchmarks\n\n## Multi-label Naive Bayes\n\n{block}\n"
    path.write_text(text)
    print(f"wrote {path}")
