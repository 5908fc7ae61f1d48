"""`TensorProto` to numpy, without TensorFlow and without TensorBoard's util.

Only the dtypes summaries use; anything else raises ValueError.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# DataType enum value -> (numpy dtype, TensorProto field holding the values).
_DTYPES: dict[int, tuple[str, str]] = {
    1: ("<f4", "float_val"),  # DT_FLOAT
    2: ("<f8", "double_val"),  # DT_DOUBLE
    3: ("<i4", "int_val"),  # DT_INT32
    4: ("u1", "int_val"),  # DT_UINT8
    5: ("<i2", "int_val"),  # DT_INT16
    6: ("i1", "int_val"),  # DT_INT8
    9: ("<i8", "int64_val"),  # DT_INT64
    10: ("?", "bool_val"),  # DT_BOOL
    14: ("<u2", "half_val"),  # DT_BFLOAT16 (bits; converted below)
    17: ("<u2", "int_val"),  # DT_UINT16
    19: ("<f2", "half_val"),  # DT_HALF (bits)
    22: ("<u4", "uint32_val"),  # DT_UINT32
    23: ("<u8", "uint64_val"),  # DT_UINT64
}
DT_STRING = 7


def tensor_to_array(tensor: Any) -> np.ndarray:
    """Decodes a numeric `TensorProto` into an array of its shape.

    Raises:
      ValueError: for string or unsupported dtypes, or a size mismatch.
    """
    shape = tuple(int(dim.size) for dim in tensor.tensor_shape.dim)
    size = int(np.prod(shape)) if shape else 1
    try:
        dtype, field = _DTYPES[tensor.dtype]
    except KeyError:
        raise ValueError(f"unsupported tensor dtype {tensor.dtype}") from None
    if tensor.tensor_content:
        array = np.frombuffer(tensor.tensor_content, dtype=dtype)
    else:
        values = getattr(tensor, field)
        if field == "half_val":
            array = np.asarray(values, dtype=np.uint16).view(dtype)
        else:
            array = np.asarray(values, dtype=dtype)
        if 0 < len(array) < size:
            # TensorFlow repeats the last value to fill the shape.
            array = np.concatenate(
                (array, np.full(size - len(array), array[-1], dtype=dtype))
            )
    if tensor.dtype == 14:
        array = (array.astype(np.uint32) << 16).view(np.float32)
    if array.size != size:
        raise ValueError(f"tensor of shape {shape} holds {array.size} values")
    return array.reshape(shape)


def tensor_strings(tensor: Any) -> list[bytes]:
    """The byte strings of a DT_STRING tensor."""
    if tensor.dtype != DT_STRING:
        raise ValueError(f"tensor dtype {tensor.dtype} is not a string")
    return list(tensor.string_val)
