"""`labelguard.scan(...)`: the command line's dataset scan, from Python.

    report = labelguard.scan("data/cityscapes", preset="cityscapes")
    report = labelguard.scan(tokenized["train"], model=model)     # a datasets.Dataset, in place
    report.ok, report.findings, report.to_json(), str(report)      # and rich display in notebooks

The scan is the `labelguard scan` command itself, run inside this process through the extension
(`_native.cli`, the engine the wheel's `labelguard` command runs): one scan writes the JSON
report and the HTML page, and the text report is rendered from the JSON by `labelguard merge`,
which renders a single report exactly as `scan` does. So the command line and Python give the
same findings, the same JSON and the same HTML for the same input.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import tempfile
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import _command
from ._report import Finding, Location, Report
from ._scan_sources import dataset_paths, model_dir


class ScanError(ValueError):
    """The scan could not run: a bad setting, a path that does not exist, an unreadable config.
    The message is the command line's own (exit code 2)."""


ScanError.__module__ = "labelguard"


@dataclasses.dataclass(frozen=True)
class ScanReport(Report):
    """The report of `labelguard.scan`: `ok` (no errors: the command's exit code 0), `findings`
    (each with its `path`, `split` and the `rows` the engine names), `summary` (the JSON report's),
    `to_json()` (the text of `--format json`), `to_html()` (the page of `--html`, which notebooks
    display), and `str()` (the text report)."""

    exit_code: int = 0
    summary: Dict[str, Any] = dataclasses.field(default_factory=dict)
    json_text: str = dataclasses.field(default="", repr=False)
    html_text: str = dataclasses.field(default="", repr=False)
    text: str = dataclasses.field(default="", repr=False)

    @property
    def ok(self) -> bool:
        """True when the scan found no errors (with `strict=True`, no warnings either)."""
        return self.exit_code == 0

    def to_json(self) -> str:
        """The JSON report, the same text as `labelguard scan --format json`."""
        return self.json_text

    def to_dict(self) -> Dict[str, Any]:
        return json.loads(self.json_text)

    def to_html(self) -> str:
        """The HTML report, the same page as `labelguard scan --html FILE` writes."""
        return self.html_text

    def _repr_html_(self) -> str:
        """The HTML report in a notebook: the page of `to_html()` in an iframe, whose styles then
        apply to the report alone and not to the notebook around it."""
        import html

        return (
            f'<iframe class="labelguard-scan" title="labelguard scan report" sandbox="" '
            f'style="width:100%;height:640px;border:1px solid #ddd" srcdoc="{html.escape(self.html_text, quote=True)}"></iframe>'
        )

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"<labelguard.ScanReport {s.get('status', '?')}: {s.get('errors', 0)} errors, "
            f"{s.get('warnings', 0)} warnings in {s.get('files_scanned', 0)} files>"
        )


def scan(source: Any, *, model: Any = None, config: Any = None, **settings: Any) -> ScanReport:
    """Scans a dataset with the engine of `labelguard scan` and returns its report.

    `source`: a path (or a list of paths), a `datasets.Dataset` or `datasets.DatasetDict` (read
    in place from its Arrow cache files; one held in memory is first saved to a temporary folder).
    `model`: a model directory, or a transformers model (its config is read, as `config.json`).
    `config`: a `labelguard.toml` / `pyproject.toml` to read settings from; None finds the nearest
    one above the data, as the command does; False reads none.
    `settings`: the scan's settings by their config names (`num_classes=19`, `ignore_index=255`,
    `preset="ade20k"`, `layout="files"`, `include=["*.png"]`, `strict=True`), as in the config file.

    Raises ScanError when the scan cannot run (a bad setting, a missing path).
    """
    with tempfile.TemporaryDirectory(prefix="labelguard-scan-") as tmp:
        paths = dataset_paths(source, tmp)
        argv = ["scan", *paths, *_config_args(config)]
        if model is not None:
            settings["model"] = model_dir(model, tmp)
        argv += settings_args(settings)
        out_json, out_html, out_text = (os.path.join(tmp, n) for n in ("report.json", "report.html", "report.txt"))
        code = run_command([*argv, "--quiet", "--format", "json", "--output", out_json, "--html", out_html])
        # The text report is rendered from the JSON report by `merge` (the same renderer, the same text).
        run_command(["merge", out_json, "--output", out_text])
        json_text, html_text, text = (_read(p) for p in (out_json, out_html, out_text))
    return report_of(json_text, html_text, text, code)


def report_of(json_text: str, html_text: str, text: str, exit_code: int) -> ScanReport:
    d = json.loads(json_text)
    ok = exit_code == 0
    return ScanReport(
        op="scan",
        verdict="ok" if ok else "error",
        findings=tuple(_findings(d)),
        exit_code=exit_code,
        summary=d.get("summary", {}),
        json_text=json_text,
        html_text=html_text,
        text=text,
    )


#: The settings whose flag takes no value (`switch: true` in the scan's settings.rs).
_SWITCHES = frozenset({"strict"})


def settings_args(settings: Dict[str, Any]) -> List[str]:
    """The flags of `scan` for settings named as in the config file: `num_classes=19` is
    `--num-classes 19`, a list is the flag repeated, True/False a switch (`strict=True` is
    `--strict`) or an explicit value (`reduce_zero_label=False`). The command validates them."""
    args: List[str] = []
    for key, value in settings.items():
        if not key.isidentifier() or key.startswith("_"):
            raise ScanError(f"labelguard.scan: '{key}' is not a setting's name")
        flag = "--" + key.replace("_", "-")
        if value is None:
            continue
        if isinstance(value, bool) and key in _SWITCHES:
            args += [flag] if value else []
        elif isinstance(value, bool):
            args.append(f"{flag}={'true' if value else 'false'}")
        elif isinstance(value, (list, tuple)):
            for v in value:
                args += [flag, _text(v)]
        else:
            args += [flag, _text(value)]
    return args


def _text(value: Any) -> str:
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return str(value)


def _config_args(config: Any) -> List[str]:
    if config is None:
        return []
    if config is False:
        return ["--no-config"]
    return ["--config", os.fspath(config)]


def run_command(argv: Sequence[str]) -> int:
    """Runs `labelguard ARGV` in this process; raises ScanError with the command's own message
    when it fails (exit code 2). Returns the exit code (0 or 1)."""
    code, out, message = _command.run(argv)
    if code not in (0, 1):
        message = message.strip().removeprefix("labelguard: ").removeprefix("error: ")
        raise ScanError(f"labelguard {argv[0]} could not run: {message or f'exit code {code}'}")
    # The reports go to files: what was printed meanwhile (a note of the command, another
    # thread's output) is passed on, not lost.
    sys.stdout.write(out)
    sys.stderr.write(message)
    return code


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def _findings(d: Dict[str, Any]) -> List[Finding]:
    """Every finding of the report, in the JSON's order: each file's (with its path and split),
    then the dataset-level ones; a folder of several datasets adds each dataset's."""
    out: List[Finding] = []
    for part in [d, *d.get("datasets", [])]:
        for f in part.get("files", []):
            rows = f.get("kind") == "table"
            out += [_finding(x, f.get("path"), f.get("split"), rows) for x in f.get("findings", [])]
        out += [_finding(x, x.get("path"), x.get("split"), False) for x in part.get("dataset", [])]
    return out


def _finding(x: Dict[str, Any], path: Optional[str], split: Optional[str], rows: bool) -> Finding:
    locations: Tuple[Location, ...] = tuple(
        Location(l["tensor"], tuple(l["index"]), l["value"]) for l in x.get("locations", [])
    )
    return Finding(
        code=x["code"], rule=x["rule"], severity=x["severity"], verdict=x.get("verdict", ""),
        message=x["message"], hint=x.get("hint"), fix=x.get("fix", ""), locations=locations,
        count=x.get("count"), values=tuple((v["value"], v["count"]) for v in x.get("values", [])),
        path=x.get("path", path), split=split,
        rows=tuple(sorted({l.index[0] for l in locations if l.index})) if rows else (),
    )
