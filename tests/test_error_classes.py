"""One base class for every error and every warning of the package (ir_cwla/errors.py).

Read from the source: every ``raise`` of a built-in exception class, every exception or warning
class defined outside ``errors.py`` and every ``warnings.warn`` without one of the package's
categories is a failure, so a new ``raise ValueError(...)`` cannot creep back in.
"""
from __future__ import annotations

import ast
import builtins
import warnings
from pathlib import Path

import pytest

import ir_cwla
from ir_cwla import errors

PACKAGE = Path(ir_cwla.__file__).parent
SOURCES = sorted(p for p in PACKAGE.rglob("*.py"))
BUILTIN_EXCEPTIONS = {name for name, obj in vars(builtins).items()
                      if isinstance(obj, type) and issubclass(obj, BaseException)}
#: raising these is part of a protocol, not an error of the package's own
PROTOCOL = {"AttributeError": "module __getattr__", "NotImplementedError": "abstract methods",
            "StopIteration": "iterators", "KeyboardInterrupt": "re-raised"}


def _raised_names(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(exc, ast.Name):
                yield node.lineno, exc.id


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_builtin_exception_is_raised(path):
    tree = ast.parse(path.read_text())
    bad = [(line, name) for line, name in _raised_names(tree)
           if name in BUILTIN_EXCEPTIONS and name not in PROTOCOL]
    assert not bad, f"{path.name} raises built-in exceptions (use ir_cwla.errors): {bad}"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_error_and_warning_classes_live_in_errors(path):
    if path.name == "errors.py" and path.parent == PACKAGE:
        return
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            bases = {b.id for b in node.bases if isinstance(b, ast.Name)} | \
                {b.attr for b in node.bases if isinstance(b, ast.Attribute)}
            assert not any(b.endswith(("Error", "Warning", "Exception")) for b in bases), \
                f"{path.name}:{node.lineno}: class {node.name} belongs in ir_cwla/errors.py"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_every_warning_has_a_category_of_the_package(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "warn" \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "warnings":
            category = node.args[1] if len(node.args) > 1 else next(
                (k.value for k in node.keywords if k.arg == "category"), None)
            assert category is not None, f"{path.name}:{node.lineno}: warnings.warn without a category"
            if isinstance(category, ast.Name) and category.id in vars(errors):
                continue
            # a category passed through a variable must be checked where it is chosen
            assert isinstance(category, ast.Name) and category.id == "category", \
                f"{path.name}:{node.lineno}: category {ast.unparse(category)} is not one of ir_cwla.errors"


def test_hierarchy():
    for name in errors.__all__:
        cls = getattr(errors, name)
        if issubclass(cls, Warning):
            assert issubclass(cls, errors.IrCwlaWarning), name
        else:
            assert issubclass(cls, errors.IrCwlaError), name
        assert getattr(ir_cwla, name) is cls, f"ir_cwla.{name} is not re-exported"
    # the built-in meaning is kept, so `except ValueError` code still works
    for name in ("InputError", "MeasureError", "MeasureSyntaxError", "ParameterError", "DataError", "KernelError",
                 "RegistrationError", "OutputError", "CostError"):
        assert issubclass(getattr(errors, name), ValueError), name
    assert issubclass(errors.MissingFileError, FileNotFoundError)
    assert issubclass(errors.DownloadError, OSError)
    assert issubclass(errors.ArgumentTypeError, TypeError)
    assert str(errors.NotFoundError("no such instance")) == "no such instance"
    assert issubclass(errors.IrCwlaDeprecationWarning, DeprecationWarning)


def test_one_except_catches_the_package_errors():
    import pandas as pd

    from ir_cwla import meta

    with pytest.raises(ir_cwla.IrCwlaError):
        ir_cwla.parse_measure("CWLA(C='RBP', p=2)@10").validate_params()
    with pytest.raises(ir_cwla.IrCwlaError):
        ir_cwla.io.as_run_frame(pd.DataFrame({"query_id": ["1"], "doc_id": ["d"], "score": [float("nan")]}))
    with pytest.raises(ir_cwla.IrCwlaError):
        meta.similarity(pd.DataFrame({"name": ["a"], "qid": ["1"], "measure": ["P@10"], "value": [1.0]}))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ir_cwla.io.as_run_frame(pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["d", "d"], "score": [1.0, 2.0]}))
    assert caught and all(issubclass(w.category, ir_cwla.IrCwlaWarning) for w in caught)
