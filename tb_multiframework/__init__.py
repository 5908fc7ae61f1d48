"""tb_multiframework: compare PyTorch, TensorFlow/Keras and Paddle runs in TensorBoard.

`import tb_multiframework` stays light: TensorBoard imports this package
when it loads the plugin's entry point. The Python API (`read`, ...) and
its numpy/protobuf/pandas imports load on first use (PEP 562).
"""

from typing import TYPE_CHECKING, Any

__version__ = "0.2.0"

_API_NAMES = frozenset(
    {
        "Experiment",
        "FIXED_COLUMNS",
        "NoRunsError",
        "SCALAR_COLUMNS",
        "Table",
        "TbmfWarning",
        "UnknownNameError",
        "read",
    }
)


# Not for type checkers: they would follow the import into the whole stack.
if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        if name in _API_NAMES:
            from tb_multiframework import frames  # noqa: PLC0415

            return getattr(frames, name)
        raise AttributeError(
            f"module 'tb_multiframework' has no attribute {name!r}"
        )


def __dir__() -> list[str]:
    return sorted({*globals(), *_API_NAMES})
