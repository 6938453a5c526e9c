"""Every error and warning ir_cwla raises on purpose, under one base class each.

``except ir_cwla.IrCwlaError`` catches every error the package raises about its input, its
arguments or its data; ``warnings.filterwarnings("ignore", category=ir_cwla.IrCwlaWarning)``
silences every warning of its own. Each error also keeps the built-in class that says what
kind of problem it is (``ValueError`` for a bad value, ``TypeError`` for a wrong type,
``FileNotFoundError``/``OSError`` for files, ``KeyError`` for a name looked up in a table),
so code written against those still works::

    IrCwlaError
    ├── InputError (ValueError)            a run, qrels, per-query, CSV, cost or gain input that breaks
    │   └── CostError                      the rules (the message names the file and line, or the row)
    ├── MeasureError (ValueError)          a measure that cannot be built or scored as asked
    │   └── MeasureSyntaxError             a name that no accepted grammar reads
    ├── RegistrationError (ValueError)     registering a model, aggregation, criterion or alias wrongly
    ├── KernelError (ValueError)           a browsing model gave a C(i) outside [0, 1]
    ├── ParameterError (ValueError)        an argument of a function outside what it accepts
    ├── DataError (ValueError)             data that cannot support the analysis asked for
    ├── OutputError (ValueError)           a report cannot be written where asked
    ├── ArgumentTypeError (TypeError)      an argument of the wrong type
    ├── NotFoundError (KeyError)           a name not in a table (an instance, a document)
    ├── MissingFileError (FileNotFoundError)
    ├── DownloadError (OSError)            an ir_datasets download failed
    ├── MeasurementError (RuntimeError)    a timing that measured nothing
    ├── MissingDependencyError (ImportError) an optional package a feature needs is not installed
    └── UsageError                         the command line used in a way it cannot be

    IrCwlaWarning (UserWarning)
    ├── InputWarning                       something in the input was skipped or read in a special way
    │   ├── DuplicateWarning               a repeated (topic, doc_id) line was dropped
    │   ├── ScoreOverflowWarning           scores beyond float32's range (they tie, as in trec_eval)
    │   ├── LineOrderWarning               a run whose line order is not its score order (cwl_eval)
    │   └── RawCranfieldWarning            qrels that look like Cranfield's raw grades
    ├── MissingTopicsWarning               a run answers only some of the qrels topics
    ├── UndefinedStatisticWarning          a statistic that is undefined on these data (ties, too few)
    ├── LongRunWarning                     a randomised procedure estimated to run long
    ├── RankingWarning                     a leaderboard ranking to be read with care
    │   └── ConstantMetricWarning          a metric equal for every system, left out of a Dynascore
    ├── PluginWarning                      a plugin that could not be loaded
    ├── OutputWarning                      something a report did not write was kept aside
    └── IrCwlaDeprecationWarning (DeprecationWarning)
"""
from __future__ import annotations

__all__ = [
    "IrCwlaError", "InputError", "CostError", "MeasureError", "MeasureSyntaxError", "RegistrationError",
    "KernelError", "ParameterError", "DataError", "OutputError", "ArgumentTypeError", "NotFoundError",
    "MissingFileError", "DownloadError", "MeasurementError", "MissingDependencyError", "UsageError",
    "IrCwlaWarning", "InputWarning", "DuplicateWarning", "ScoreOverflowWarning", "LineOrderWarning",
    "RawCranfieldWarning", "MissingTopicsWarning", "UndefinedStatisticWarning", "LongRunWarning",
    "RankingWarning", "ConstantMetricWarning", "PluginWarning", "IrCwlaDeprecationWarning",
    "OutputWarning",
]


class IrCwlaError(Exception):
    """The base class of every error ir_cwla raises on purpose."""


class InputError(IrCwlaError, ValueError):
    """A run, qrels, per-query, CSV, cost or gain input that cannot be read as it is.

    The message names the input and, for a file, the line.
    """


class CostError(InputError):
    """Document costs (a cost file, a cost table, a cost per grade) that cannot be used."""


class MeasureError(IrCwlaError, ValueError):
    """A measure that cannot be built or scored as asked.

    A parameter out of range, an unknown browsing model or aggregation, or a
    combination the framework rejects.
    """


class MeasureSyntaxError(MeasureError):
    """A measure name that none of the accepted grammars reads (the message lists them)."""


class RegistrationError(IrCwlaError, ValueError):
    """A browsing model, aggregation, criterion or measure name registered wrongly.

    A browsing model, aggregation, criterion or measure name registered wrongly (a name
    taken, a name that collides with an ir-measures measure, a bad declaration).
    """


class KernelError(IrCwlaError, ValueError):
    """A browsing model produced an invalid C (outside [0, 1], or NaN)."""


class ParameterError(IrCwlaError, ValueError):
    """An argument of a function outside what it accepts (the message says what is)."""


class DataError(IrCwlaError, ValueError):
    """Data that cannot support the analysis asked for.

    Too few systems or topics, topics missing for some systems, a measure that ties every
    system, no system within a budget.
    """


class OutputError(IrCwlaError, ValueError):
    """A report or file cannot be written where asked (and nothing was written)."""


class ArgumentTypeError(IrCwlaError, TypeError):
    """An argument of the wrong type."""


class NotFoundError(IrCwlaError, KeyError):
    """A name looked up in a table that does not hold it (an instance, a document)."""

    def __str__(self) -> str:       # KeyError would show the message in quotes
        return str(self.args[0]) if self.args else ""


class MissingFileError(IrCwlaError, FileNotFoundError):
    """A file named as an input does not exist."""


class DownloadError(IrCwlaError, OSError):
    """An ir_datasets download failed (the message says what to do offline)."""


class MeasurementError(IrCwlaError, RuntimeError):
    """A timing or measurement that measured nothing usable."""


class MissingDependencyError(IrCwlaError, ImportError):
    """An optional package that a feature needs is not installed (the message says which extra)."""


class UsageError(IrCwlaError):
    """The command line used in a way it cannot be (exit status 1, one line on stderr)."""


# ----------------------------------------------------------------------------------- warnings

class IrCwlaWarning(UserWarning):
    """The base class of every warning ir_cwla issues."""


class InputWarning(IrCwlaWarning):
    """Something in the input was skipped or read in a special way (the message says what)."""


class DuplicateWarning(InputWarning):
    """A run or qrels line that repeats a (topic, doc_id) was dropped (the message says which)."""


class ScoreOverflowWarning(InputWarning):
    """Scores beyond the float32 range, which compare as equal to +-inf, as in trec_eval."""


class LineOrderWarning(InputWarning):
    """A run whose line order is not its score order (cwl_eval ranks by line order)."""


class RawCranfieldWarning(InputWarning):
    """Qrels that look like Cranfield's raw judgments, read without its grade conventions."""


class MissingTopicsWarning(IrCwlaWarning):
    """A run answers only some of the qrels topics (the message says how many, and how they count)."""


class UndefinedStatisticWarning(IrCwlaWarning):
    """A statistic that is undefined on these data (every system tied, too few systems)."""


class LongRunWarning(IrCwlaWarning):
    """A randomised procedure is estimated to take long (the message says how long)."""


class RankingWarning(IrCwlaWarning):
    """A leaderboard ranking to be read with care (the message says why)."""


class ConstantMetricWarning(RankingWarning):
    """A metric has the same value for every system and is left out of a Dynascore."""


class PluginWarning(IrCwlaWarning):
    """A plugin (entry point of group ``ir_cwla.plugins``) could not be loaded."""


class OutputWarning(IrCwlaWarning):
    """Rewriting a report kept something it did not write somewhere else (the message says where)."""


class IrCwlaDeprecationWarning(IrCwlaWarning, DeprecationWarning):
    """A name or keyword that still works but will go (the message names its replacement)."""
