"""The report of ``bench_quality.py``: the targets, the tables (as text or as the Markdown
section of ``docs/quality.md``) and the plots of micro F1 against time."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "quality.md"
PLOTS = REPO / "docs" / "quality"
START, END = "<!-- bench_quality:start -->", "<!-- bench_quality:end -->"

# the targets of the issue
TIE = 0.005  # (a) BR default >= BR today-tuned - TIE on every set
ACCURACY_TARGET, AVERAGE_TARGET = 0.95, 1.0  # (b) best default / CV-C SVC micro F1
RATIO_MEDIAN, RATIO_MAX = 10.0, 25.0  # (d) default fit / plain fit over the sets
SPEED_TARGET = 5.0  # (e) CV-C SVC time / BR default time, median set
SVC = ("scikit-learn", "OvR-LinearSVC", "CV-C")
NB = ("scikit-learn", "OvR-NB", "own")
BR = ("mlnb", "BR", "default")
TODAY = ("mlnb", "BR today-tuned", "reference")


# ----------------------------------------------------------------------------- formats


def fmt(value, spec=".4f"):
    return "—" if value is None else format(value, spec)


def fmt_time(seconds):
    if seconds is None:
        return "—"
    return f"{seconds:.3f}" if seconds < 10 else f"{seconds:.1f}"


def verdict(ok):
    return "n/a" if ok is None else ("met" if ok else "missed")


def markdown_table(header, rows):
    def line(cells):
        return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"

    return "\n".join([line(header), line(["---"] * len(header)), *map(line, rows)])


def text_table(header, rows):
    widths = [max(len(str(c)) for c in column) for column in zip(header, *rows, strict=True)]
    fmt_row = "  ".join(f"{{:<{w}}}" for w in widths)
    return "\n".join(fmt_row.format(*map(str, row)).rstrip() for row in [header, *rows])


def _short_command(command, limit=160):
    """The command, its ``--only`` list abbreviated when long (the cases follow it)."""
    if len(command) <= limit or " --only " not in command:
        return command
    head, rest = command.split(" --only ", 1)
    tail = rest[rest.index(" --") :] if " --" in rest else ""
    return f"{head} --only <the cases below>{tail}"


def _case_summary(cases, datasets):
    """Re-run cases ("set library method rule") grouped by case: the sets of each."""
    groups = {}
    for case in cases:
        name, what = case.split(" ", 1)
        groups.setdefault(what, []).append(name)
    return "; ".join(
        f"{what} on {'every set' if sorted(sets) == sorted(datasets) else ', '.join(sets)}"
        for what, sets in groups.items()
    )


def chosen_text(r, limit=None):
    """``key=value, ...`` of what a case chose, without the summarised tables (``{N
    entries}``, e.g. the out-of-fold score of every setting tried; they stay in the JSON)."""
    items = (r.get("chosen") or {}).items()
    text = ", ".join(f"{k}={v}" for k, v in items if not re.fullmatch(r"\{\d+ entries\}", v))
    return text if limit is None or len(text) <= limit else text[: limit - 1] + "…"


# ----------------------------------------------------------------------------- cases


def record(cases, key):
    """The case (library, method, rule) of a set, whatever its status (None: not run)."""
    return next((r for r in cases if (r["library"], r["method"], r["rule"]) == key), None)


def find(cases, key):
    """The case if it ran to the end, else None."""
    r = record(cases, key)
    return r if r is not None and r["status"] == "ok" else None


def defaults(cases):
    """The mlnb default cases, whatever their status."""
    return [r for r in cases if r["library"] == "mlnb" and r["rule"] == "default"]


def notes_of(r):
    notes = []
    if r["status"] != "ok":
        notes.append(f"{r['status']}: {r.get('reason', '')}")
    if r.get("score_error"):
        notes.append(f"no ranking loss ({r['score_error']})")
    if r.get("saturated"):
        notes.append(f"{100 * r['saturated']:.1f} % scores saturated (ties)")
    if r.get("plain_error"):
        notes.append(f"plain fit failed: {r['plain_error']}")
    if r.get("plain_same_predictions") is False:
        notes.append("the plain model predicts differently")
    if r.get("rerun"):
        notes.append(f"re-run with a {r['rerun']['budget_s']:.0f} s budget")
    if r.get("runs", 1) > 1:
        notes.append(f"best of {r['runs']}")
    for message, count in sorted(r.get("warnings", {}).items()):
        notes.append(f"{count}x {message.split(':')[0]}")
    return "; ".join(notes)


def ratio_text(r):
    if "fit_ratio" not in r:
        return ""
    return "n/a" if r["fit_ratio"] is None else f"{r['fit_ratio']:.1f}"


CASE_HEADER = [
    "library",
    "method",
    "setting",
    "micro F1",
    "macro F1",
    "example F1",
    "ranking loss",
    "labels/row pred / true",
    "fit+predict s",
    "fit / plain fit",
    "chosen",
    "notes",
]


def case_rows(cases):
    rows = []
    for r in cases:
        ok = r["status"] == "ok"

        def value(key, spec=".4f", ok=ok, r=r):
            return fmt(r.get(key), spec) if ok else "—"

        cardinality = (
            f"{r['predicted_cardinality']:.2f} / {r['true_cardinality']:.2f}"
            if ok and "true_cardinality" in r
            else "—"
        )
        rows.append(
            [
                r["library"],
                r["method"],
                r["rule"],
                value("micro_f1"),
                value("macro_f1"),
                value("example_f1"),
                value("ranking_loss"),
                cardinality,
                fmt_time(r.get("total_s")) if ok else "—",
                ratio_text(r) if ok else ("" if "fit_ratio" not in r else "—"),
                chosen_text(r, 120),
                notes_of(r),
            ]
        )
    return rows


# ----------------------------------------------------------------------------- targets


def _sets_text(names):
    return ", ".join(names) if names else "none"


def _every(values, ok, missing):
    """'met' / 'missed' for a target on every set, qualified when some set was not measured."""
    if not values:
        return "n/a (not measured)"
    if not all(ok(v) for v in values):
        return "missed"
    if missing:
        return f"met on the {len(values)} measured sets (not measured: {', '.join(missing)})"
    return "met"


def targets(results):
    """The issue's targets (a) to (f): (summary lines, per-set rows, fit-ratio rows)."""
    data = results["datasets"]
    budget = results["meta"].get("budget_s")
    rows, summary = [], []
    diffs, missing_a = {}, []
    ratios, missing_b = {}, []
    failures_c, unmeasured_c, missing_c = [], [], []
    speeds, missing_e = {}, []
    losses, missing_f = {}, []
    for name, entry in data.items():
        cases = entry["cases"]
        br, today, svc, nb = (find(cases, key) for key in (BR, TODAY, SVC, NB))
        row = [name]
        # (a) BR default against BR today-tuned
        if br and today:
            diffs[name] = br["micro_f1"] - today["micro_f1"]
            row.append(f"{diffs[name]:+.4f} {'✓' if diffs[name] >= -TIE else '✗'}")
        else:
            missing_a.append(name)
            row.append("—")
        # (b) best mlnb default against the CV-C LinearSVC
        measured = [r for r in defaults(cases) if r["status"] == "ok"]
        if measured and svc:
            best = max(measured, key=lambda r: r["micro_f1"])
            ratios[name] = (best["micro_f1"] / svc["micro_f1"], best["method"])
            row.append(
                f"{best['method']} {best['micro_f1']:.4f} / {svc['micro_f1']:.4f} = "
                f"{ratios[name][0]:.3f}"
            )
        else:
            missing_b.append(name)
            row.append("—")
        # (c) every mlnb default above scikit-learn's OvR NB
        if nb:
            below = [r for r in measured if not r["micro_f1"] > nb["micro_f1"]]
            failures_c += [
                f"{r['method']} on {name} ({r['micro_f1']:.4f} vs {nb['micro_f1']:.4f})"
                for r in below
            ]
            unmeasured_c += [
                f"{r['method']} on {name}" for r in defaults(cases) if r not in measured
            ]
            row.append(", ".join(r["method"] for r in below) or "none")
        else:
            missing_c.append(name)
            row.append("—")
        # (d) BR's fit / plain fit (every method below)
        row.append(ratio_text(br) if br else "—")
        # (e) CV-C SVC time / BR default time; an over-budget SVC gives a lower bound
        svc_record = record(cases, SVC)
        if br and (svc or (svc_record and svc_record["status"] == "over budget")):
            lower = svc is None
            seconds = svc["total_s"] if svc else svc_record.get("elapsed_s", budget)
            speeds[name] = (seconds / br["total_s"], lower)
            row.append(f"{'≥ ' if lower else ''}{speeds[name][0]:.1f}x")
        else:
            missing_e.append(name)
            row.append("—")
        # (f) BR default's ranking loss against the best single event model at 0.5
        references = [
            find(cases, ("mlnb", f"BR {events} 0.5", "reference"))
            for events in entry["info"].get("reference_events", [])
        ]
        references = [r for r in references if r and r.get("ranking_loss") is not None]
        if br and br.get("ranking_loss") is not None and references:
            least = min(references, key=lambda r: r["ranking_loss"])
            losses[name] = (br["ranking_loss"], least["ranking_loss"], least["method"])
            d = br["ranking_loss"] - least["ranking_loss"]
            row.append(f"{d:+.4f} vs {least['method']} {'✓' if d <= 0 else '✗'}")
        else:
            missing_f.append(name)
            row.append("—")
        rows.append(row)

    # (a)
    if diffs:
        worst = min(diffs, key=diffs.get)
        mean = float(np.mean(list(diffs.values())))
        not_on = [n for n, d in diffs.items() if d < -TIE]
        summary.append(
            f"(a) BR default micro F1 ≥ BR today-tuned - {TIE} on every set: "
            f"{_every(list(diffs.values()), lambda d: d >= -TIE, missing_a)}"
            + (f" (not on: {', '.join(not_on)})" if not_on else "")
            + f"; higher on average: {verdict(mean > 0)} (mean difference {mean:+.4f} over "
            f"{len(diffs)} sets; min {diffs[worst]:+.4f} on {worst})."
        )
    else:
        summary.append("(a) BR default against BR today-tuned: n/a (not measured).")
    # (b)
    if ratios:
        values = [r for r, _ in ratios.values()]
        mean = float(np.mean(values))
        listed = ", ".join(f"{n} {r:.3f} ({m})" for n, (r, m) in ratios.items())
        summary.append(
            f"(b) Best mlnb default / CV-C LinearSVC micro F1 ≥ {ACCURACY_TARGET} on every set: "
            f"{_every(values, lambda r: r >= ACCURACY_TARGET, missing_b)}; mean ≥ "
            f"{AVERAGE_TARGET}: {verdict(mean >= AVERAGE_TARGET)} (mean {mean:.3f}, min "
            f"{min(values):.3f}; the best is picked on the test part). Ratios: {listed}."
        )
    else:
        summary.append("(b) Best mlnb default against the CV-C LinearSVC: n/a (not measured).")
    # (c)
    measured_c = len(data) - len(missing_c)
    summary.append(
        "(c) Every mlnb default's micro F1 above scikit-learn's OvR NB: "
        + (
            "n/a (not measured)."
            if not measured_c
            else verdict(not failures_c)
            + (f"; not above: {'; '.join(failures_c)}" if failures_c else "")
            + (f"; not measured: {', '.join(unmeasured_c)}" if unmeasured_c else "")
            + (f"; no OvR NB on: {', '.join(missing_c)}" if missing_c else "")
            + "."
        )
    )
    # (d)
    ratio_rows, parts, all_ok = fit_ratio_rows(data)
    summary.append(
        f"(d) Default fit / plain fit, median over the sets ≤ {RATIO_MEDIAN:.0f} and max ≤ "
        f"{RATIO_MAX:.0f}, per method: "
        + (
            f"{verdict(all_ok)}; " + "; ".join(parts) + "."
            if parts
            else "n/a (no mlnb default has chosen_params_ in this run)."
        )
    )
    # (e)
    if speeds:
        values = [s for s, _ in speeds.values()]
        median = float(np.median(values))
        bounded = [n for n, (_, lower) in speeds.items() if lower]
        if median >= SPEED_TARGET:
            result = "met"
        elif bounded:
            result = "not determined (over-budget SVC times are lower bounds)"
        else:
            result = "missed"
        summary.append(
            f"(e) BR default fit + predict ≥ {SPEED_TARGET:.0f}x faster than the CV-C "
            f"LinearSVC on the median set: {result} (median {median:.1f}x over {len(values)} "
            f"sets, min {min(values):.1f}x, max {max(values):.1f}x"
            + (f"; lower bounds (SVC over budget): {', '.join(bounded)}" if bounded else "")
            + (f"; not measured: {', '.join(missing_e)}" if missing_e else "")
            + ")."
        )
    else:
        summary.append("(e) BR default against the CV-C LinearSVC's time: n/a (not measured).")
    # (f)
    if losses:
        worse = [
            f"{n} ({b:.4f} vs {m} {least:.4f})" for n, (b, least, m) in losses.items() if b > least
        ]
        summary.append(
            "(f) BR default ranking loss ≤ the best single event model at the 0.5 rule "
            f"(BR <E> 0.5) on every set: "
            f"{_every(list(losses.values()), lambda v: v[0] <= v[1], missing_f)}"
            + (f"; worse on: {'; '.join(worse)}" if worse else "")
            + "."
        )
    else:
        summary.append("(f) BR default ranking loss against BR <E> 0.5: n/a (not measured).")
    return summary, rows, ratio_rows


def fit_ratio_rows(data):
    """(d): per mlnb default method, its fit / plain fit on each set, median, max, verdict.

    Returns the rows, the summary parts and whether every method with ratios met (None when
    no method has any)."""
    methods = []
    for entry in data.values():
        for r in defaults(entry["cases"]):
            if r["method"] not in methods:
                methods.append(r["method"])
    rows, parts, oks, without, unmeasured = [], [], [], [], []
    for method in methods:
        row, values, measured = [method], [], False
        for entry in data.values():
            r = record(entry["cases"], ("mlnb", method, "default"))
            if r is None:
                row.append("")
            elif r["status"] != "ok":
                row.append("—")
            else:
                measured = True
                row.append(ratio_text(r))
                if r.get("fit_ratio") is not None:
                    values.append(r["fit_ratio"])
        if values:
            median, largest = float(np.median(values)), max(values)
            ok = median <= RATIO_MEDIAN and largest <= RATIO_MAX
            oks.append(ok)
            row += [f"{median:.1f}", f"{largest:.1f}", verdict(ok)]
            parts.append(f"{method} median {median:.1f}, max {largest:.1f} ({verdict(ok)})")
        elif method == "BR":
            row += ["n/a", "n/a", "n/a"]
            parts.append("BR n/a (no chosen_params_)")
        else:  # no row for a method without chosen_params_ (those refitted per fold)
            (without if measured else unmeasured).append(method)
            continue
        rows.append(row)
    if without:
        parts.append(f"without chosen_params_ (no ratio): {', '.join(without)}")
    if unmeasured:
        parts.append(f"not measured on any set: {', '.join(unmeasured)}")
    return rows, parts, (all(oks) if oks else None)


# ----------------------------------------------------------------------------- report


def intro_text(results):
    meta = results["meta"]
    data = results["datasets"]
    versions = ", ".join(f"{k} {v}" for k, v in meta["versions"].items())
    threads = ", ".join(f"{k}={v}" for k, v in meta["threads"].items())
    intro = (
        f"Run: {meta['date']}; {meta['cpu']}, {meta['cores']} cores (shared with other jobs); "
        f"load average (1, 5, 15 min) {meta['load_start']} at start, "
        f"{meta.get('load_end', '?')} at the end; "
        f"whole run {meta.get('wall_s', 0) / 60:.0f} min.\n\n"
        f"Command: `{meta['command']}`, with {threads}.\n\n"
        f"Versions: {versions}."
        + (
            ""
            if meta["skmultilearn"]
            else " scikit-multilearn: not installed, its rows are left out."
        )
        + f"\n\nBudget per case: {meta['budget_s']:.0f} s (a case over it is stopped)."
    )
    api = dict(meta.get("defaults", {}))
    rule = api.pop("BR rule parameter", None)
    if api:
        groups = {}
        for name, text in api.items():
            groups.setdefault(text or "no events/rule parameter", []).append(name)
        intro += "\n\nmlnb defaults measured: " + "; ".join(
            f"{', '.join(names)}: {text}" for text, names in groups.items()
        )
        intro += f" (BinaryRelevance has a rule parameter: {rule})." if rule else "."
    for update in meta.get("updates", []):
        intro += (
            f"\n\nRe-run on {update['date']} by `{_short_command(update['command'])}` "
            f"(budget {update['budget_s']:.0f} s; load {update['load_start']} at start, "
            f"{update['load_end']} at the end): {_case_summary(update['cases'], list(data))}."
        )
    left_out = meta.get("left_out", {})
    missing = [n for n in meta.get("available", []) if n not in data]
    if left_out or missing:
        intro += (
            "\n\nData sets with a provided split not in this report: "
            + "; ".join(
                [f"{n}: {why}" for n, why in left_out.items()]
                + [f"{n}: not in this report (--datasets / --quick)" for n in missing]
            )
            + "."
        )
    return intro


DATA_HEADER = [
    "data",
    "train",
    "test",
    "features",
    "labels",
    "labels/row train / test",
    "X",
    "X ≥ 0",
    "scikit-learn NB",
    "labels constant in train",
]

TARGET_HEADER = [
    "data",
    "(a) BR - today-tuned micro F1",
    "(b) best default / CV-C SVC micro F1",
    "(c) defaults not above OvR-NB",
    "(d) BR fit / plain fit",
    "(e) CV-C SVC time / BR time",
    "(f) BR ranking loss - best BR <E> 0.5",
]


def data_rows(data):
    rows = []
    for name, entry in data.items():
        info = entry["info"]
        test = info.get("test_cardinality")
        rows.append(
            [
                name,
                info["train"],
                info["test"],
                info["features"],
                info["labels"],
                f"{info['cardinality']:.2f} / " + ("—" if test is None else f"{test:.2f}"),
                info["kind"],
                {True: "yes", False: "no"}.get(info.get("nonnegative"), "—"),
                info["events"],
                info["constant_labels"],
            ]
        )
    return rows


def report(results, table):
    """The report's sections as (title, body) pairs."""
    data = results["datasets"]
    sections = [("", intro_text(results)), ("Data", table(DATA_HEADER, data_rows(data)))]
    summary, target_rows, ratio_rows = targets(results)
    sections.append(("Targets", "\n".join(f"- {line}" for line in summary)))
    sections.append(("Targets per set", table(TARGET_HEADER, target_rows)))
    sections.append(
        (
            "(d) Cost of the defaults' search: default fit / plain fit of the chosen settings",
            table(["method", *data, "median", "max", "target"], ratio_rows),
        )
    )
    for name, entry in data.items():
        body = table(CASE_HEADER, case_rows(entry["cases"]))
        if (PLOTS / f"{name}.png").exists():
            body += f"\n\n![micro F1 against time on {name}](quality/{name}.png)"
        sections.append((f"{name}", body))
    problems = []
    for name, entry in data.items():
        for r in entry["cases"]:
            where = f"{name} {r['library']} {r['method']} {r['rule']}"
            if r["status"] == "error":
                problems.append(f"{where}: error {r.get('reason')}")
            if r.get("score_error"):
                problems.append(f"{where}: scores: {r['score_error']}")
            if r.get("plain_error"):
                problems.append(f"{where}: plain fit: {r['plain_error']}")
            for message, count in r.get("warnings", {}).items():
                problems.append(f"{where}: {count}x {message}")
    if problems:
        sections.append(("Errors and warnings", "\n".join(f"- {p}" for p in problems)))
    return sections


def print_report(results):
    for title, body in report(results, text_table):
        if title:
            print(f"\n{title}\n{'-' * len(title)}")
        print(body)


def write_markdown(results, path=DOC):
    """The report between the markers of ``path``; the text around them is kept."""
    body = "\n\n".join(
        (f"### {title}\n\n{text}" if title else text)
        for title, text in report(results, markdown_table)
    )
    command = "python benchmarks/bench_quality.py --markdown"
    block = (
        f"{START}\n<!-- generated by `{command}`; edit outside the markers -->\n\n{body}\n\n{END}"
    )
    if path.exists() and START in path.read_text() and END in path.read_text():
        head, rest = path.read_text().split(START, 1)
        text = head + block + rest.split(END, 1)[1]
    else:
        old = path.read_text().rstrip() + "\n\n" if path.exists() else "# Prediction quality\n\n"
        text = old + block + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    print(f"wrote {path}")


# ----------------------------------------------------------------------------- plots

# kind -> (marker, face colour, edge colour, legend)
STYLE = {
    "default": ("o", "tab:blue", "tab:blue", "mlnb at its defaults"),
    "reference": ("o", "none", "tab:blue", "mlnb references (BR today-tuned, BR <E> 0.5)"),
    "nb": ("s", "tab:orange", "tab:orange", "scikit-learn NB"),
    "linear": ("^", "none", "tab:red", "scikit-learn linear (OvR), C=1"),
    "linear-cv": ("^", "tab:red", "tab:red", "scikit-learn linear (OvR), C by 3-fold CV"),
    "skml": ("D", "tab:green", "tab:green", "scikit-multilearn"),
}
SHORT = {"OvR-LinearSVC": "SVC", "OvR-LogReg": "LogReg"}


def kind_of(r):
    if r["library"] == "mlnb":
        return "default" if r["rule"] == "default" else "reference"
    if r["library"] == "scikit-multilearn":
        return "skml"
    if r["rule"] == "CV-C":
        return "linear-cv"
    return "linear" if r["rule"] == "C=1" else "nb"


def label_of(r):
    kind = kind_of(r)
    if kind in ("linear", "linear-cv"):
        return f"{SHORT.get(r['method'], r['method'])} {r['rule']}"
    if kind == "nb":
        return f"sk {r['method']}"
    if kind == "skml":
        return f"skml {r['method']}"
    return r["method"]


OFFSETS = [(4, 3), (4, -9), (-4, 3), (-4, -9), (4, 10), (4, -16), (-4, 10), (-4, -16)]


def place_labels(fig, ax, labels):
    """Annotate each point at the first offset whose text overlaps no label placed before
    (the least overlapping one when none is free)."""
    renderer = fig.canvas.get_renderer()
    placed = []
    for text, x, y in sorted(labels, key=lambda item: -item[2]):
        best = None
        for dx, dy in OFFSETS:
            note = ax.annotate(
                text,
                (x, y),
                textcoords="offset points",
                xytext=(dx, dy),
                ha="left" if dx > 0 else "right",
                fontsize=7,
            )
            box = note.get_window_extent(renderer).expanded(1.02, 1.1)
            overlap = sum(
                max(0.0, min(box.x1, b.x1) - max(box.x0, b.x0))
                * max(0.0, min(box.y1, b.y1) - max(box.y0, b.y0))
                for b in placed
            )
            if best is None or overlap < best[0]:
                if best is not None:
                    best[1].remove()
                best = (overlap, note, box)
            else:
                note.remove()
            if overlap == 0:
                break
        placed.append(best[2])


def plot(results, directory=PLOTS):
    """docs/quality/<set>.png: micro F1 against fit + predict time, one point per case."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    directory.mkdir(parents=True, exist_ok=True)
    for name, entry in results["datasets"].items():
        cases = [r for r in entry["cases"] if r["status"] == "ok"]
        if not cases:
            continue
        fig, ax = plt.subplots(figsize=(8, 5.5))
        labels, kinds = [], []
        for r in cases:
            kind = kind_of(r)
            kinds.append(kind)
            marker, face, edge, _ = STYLE[kind]
            ax.scatter(
                r["total_s"],
                r["micro_f1"],
                marker=marker,
                facecolors=face,
                edgecolors=edge,
                s=40,
                zorder=3,
            )
            labels.append((label_of(r), r["total_s"], r["micro_f1"]))
        ax.set_xscale("log")
        place_labels(fig, ax, labels)
        ax.set_xlabel("fit + predict, wall seconds (log scale)")
        ax.set_ylabel("micro F1 (test)")
        info = entry["info"]
        ax.set_title(
            f"{name}: {info['train']} train / {info['test']} test rows, {info['labels']} labels"
        )
        ax.grid(True, which="both", alpha=0.3)
        handles = [
            plt.Line2D([], [], marker=marker, ls="", mfc=face, mec=edge, label=legend)
            for kind, (marker, face, edge, legend) in STYLE.items()
            if kind in kinds
        ]
        ax.legend(handles=handles, fontsize=8, loc="best")
        fig.tight_layout()
        fig.savefig(directory / f"{name}.png", dpi=110)
        plt.close(fig)
        print(f"wrote {directory / f'{name}.png'}")
