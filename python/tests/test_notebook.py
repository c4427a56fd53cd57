"""`%load_ext labelguard` in a real notebook kernel: the notebook is executed by nbclient with
ipykernel, and the failing cells' outputs must hold the diagnosis (cause, fix, the cell's line,
whether the CUDA context survived, the capture to replay) before IPython's own traceback.

The device-side assert is raised here with PyTorch's own message text (c10/cuda/CUDAException.h:
"CUDA error: device-side assert triggered" and the asynchronous-report lines), since this test
runs without a GPU; the diagnosis of that text is `labelguard diagnose`'s.
"""

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("torch")

ASSERT = (
    "CUDA error: device-side assert triggered\\n"
    "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\\n"
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"
)

CELLS = [
    ("%load_ext labelguard", False),
    ("import torch, torch.nn.functional as F\nimport labelguard\n"
     "logits = torch.randn(4, 3)\ntarget = torch.tensor([0, 1, 2, 5])\n"
     f"def item():\n    raise RuntimeError(\"{ASSERT}\")", False),
    ("x = 1\nloss = F.cross_entropy(logits, target)", True),  # In [3]: the guard stops it
    ("loss = torch.tensor(0.5)\nvalue = item()", True),  # In [4]: a device-side assert, no capture
    ("with labelguard.capture('dumps') as cap:\n    cap.batch = {'target': target}\n    value = item()", True),  # In [5]
    ("raise RuntimeError('not a CUDA error')", True),  # In [6]: IPython's traceback only
    # In [7]: a TargetError rebuilt from its text, as a DataLoader worker's reaches the main process.
    ("raise labelguard.TargetError('cross_entropy: PyTorch would raise\\n[LG101] target 5 is outside [0, 2]\\n  fix: remap the labels')", True),
    ("%unload_ext labelguard", False),
    ("loss = F.cross_entropy(logits, target)", True),  # In [9]: no guard, no diagnosis: torch's IndexError
]


def texts(cell, kind="display_data"):
    return "\n".join(o["data"]["text/plain"] for o in cell.outputs if o["output_type"] == kind)


def error(cell):
    errors = [o for o in cell.outputs if o["output_type"] == "error"]
    assert len(errors) == 1, cell.outputs
    return errors[0]


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("notebook")
    nb = nbformat.v4.new_notebook()
    for source, raises in CELLS:
        cell = nbformat.v4.new_code_cell(source)
        if raises:
            cell.metadata["tags"] = ["raises-exception"]
        nb.cells.append(cell)
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(folder)}}).execute()
    return nb, folder


def test_the_extension_says_the_guards_are_on(executed):
    nb, _ = executed
    assert "guards on for this kernel" in texts(nb.cells[0])


def test_a_target_error_shows_cause_fix_and_the_cells_line(executed):
    nb, _ = executed
    cell = nb.cells[2]
    shown = texts(cell)
    assert shown.startswith("labelguard stopped this call before it ran: cross_entropy")
    assert "cause: [LG101]" in shown and "\nfix: " in shown
    assert "your code: In [3], line 2: loss = F.cross_entropy(logits, target)" in shown
    assert "the CUDA context is fine" in shown and "Restart" not in shown
    assert error(cell)["ename"] == "TargetError"
    html = next(o["data"]["text/html"] for o in cell.outputs if o["output_type"] == "display_data")
    assert "labelguard-diagnosis" in html and "LG101" in html
    # The diagnosis comes before IPython's traceback.
    kinds = [o["output_type"] for o in cell.outputs]
    assert kinds.index("display_data") < kinds.index("error")


def test_a_device_side_assert_says_the_context_is_dead_and_to_restart(executed):
    nb, _ = executed
    shown = texts(nb.cells[3])
    assert "labelguard: a CUDA error (CUDA error: device-side assert triggered): diagnosis" in shown
    assert "cause: [LG901]" in shown  # diagnose: a device-side assert whose kernel the log does not name
    assert "The CUDA context of this kernel is dead" in shown and "Restart the kernel" in shown
    assert "your code: In [2], line 6" in shown  # the innermost cell frame: item()'s raise, in In [2]
    assert "No capture was written" in shown
    assert error(nb.cells[3])["ename"] == "RuntimeError"


def test_the_capture_to_replay_after_the_restart_is_named(executed):
    nb, folder = executed
    shown = texts(nb.cells[4])
    assert "The CUDA context of this kernel is dead" in shown
    captured = list((folder / "dumps").glob("*.safetensors"))
    assert len(captured) == 1
    assert f"labelguard.replay('dumps/{captured[0].name}')" in shown or f"labelguard.replay('{captured[0]}')" in shown


def test_a_target_error_rebuilt_from_its_text_shows_that_text(executed):
    nb, _ = executed
    shown = texts(nb.cells[6])
    assert "labelguard stopped this call before it ran: cross_entropy: PyTorch would raise" in shown
    assert "[LG101] target 5 is outside [0, 2]" in shown and "fix: remap the labels" in shown
    assert "your code: In [7], line 1" in shown


def test_other_errors_and_an_unloaded_extension_get_ipythons_traceback_only(executed):
    nb, _ = executed
    assert texts(nb.cells[5]) == "" and error(nb.cells[5])["evalue"] == "not a CUDA error"
    assert texts(nb.cells[8]) == "" and error(nb.cells[8])["ename"] == "IndexError"
