"""A `sitecustomize.py` that breaks the package's import, for the tests that
check TensorBoard and `tbmf` survive it (tests/test_entry_point.py,
tests/cli/test_cli_failures.py): written into a directory put first on
PYTHONPATH, it makes importing `tb_multiframework.core` raise `{error}`
(a Python expression, filled in with str.format)."""

BREAK_IMPORT = """
import sys


class _Break:
    def find_spec(self, name, path=None, target=None):
        if name == "tb_multiframework.core":
            raise {error}
        return None


sys.meta_path.insert(0, _Break())
"""
