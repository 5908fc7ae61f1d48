"""VisualDL's `Record`, as protobuf message classes built from a descriptor.

The independent side of tests/ingest/test_visualdl_wire.py: the protobuf
library (whichever backend is installed) encodes random records and parses
them, and `visualdl_wire` must agree. `record_class(packed=False)` writes
repeated doubles unpacked, `extra=True` adds fields the decoder does not
know (numbers 15-17 in Value, 3 in Histogram, 2 in MetaData, 3 in TagValue),
so that encoded records hold unknown fields. The schema is the one the
plugin used before its hand-written decoder (kinds it does not chart are
`bytes`), built field by field from scripts/demo/visualdl_record.proto.
"""

from google.protobuf import (
    __version__,
    descriptor_pb2,
    descriptor_pool,
    message_factory,
)

_F = descriptor_pb2.FieldDescriptorProto
# protobuf 4.22-4.24's upb backend crashes the process when it serializes or
# reads nested fields of message classes built from a descriptor at run time
# (protobuf issue #12047): the very crash the hand-written decoder removes.
# There, protobuf cannot serve as the reference.
BROKEN = (4, 22) <= tuple(int(p) for p in __version__.split(".")[:2]) < (4, 25)


def _message_class(descriptor):
    get = getattr(message_factory, "GetMessageClass", None)
    if get is not None:
        return get(descriptor)
    return message_factory.MessageFactory(descriptor.file.pool).GetPrototype(
        descriptor
    )


def record_class(*, packed=True, extra=False):
    """A `Record` class; see the module docstring for the options."""
    package = f"vdlref_{int(packed)}{int(extra)}"
    file_proto = descriptor_pb2.FileDescriptorProto(
        name=f"{package}.proto", package=package, syntax="proto3"
    )
    record = file_proto.message_type.add(name="Record")
    record.field.add(
        name="values",
        number=1,
        label=_F.LABEL_REPEATED,
        type=_F.TYPE_MESSAGE,
        type_name=f".{package}.Record.Value",
    )
    histogram = record.nested_type.add(name="Histogram")
    for name, number in (("hist", 1), ("bin_edges", 2)):
        field = histogram.field.add(
            name=name,
            number=number,
            label=_F.LABEL_REPEATED,
            type=_F.TYPE_DOUBLE,
        )
        field.options.packed = packed
    meta = record.nested_type.add(name="MetaData")
    meta.field.add(
        name="display_name",
        number=1,
        label=_F.LABEL_OPTIONAL,
        type=_F.TYPE_STRING,
    )
    tag_value = record.nested_type.add(name="TagValue")
    tag_value.field.add(
        name="tag", number=1, label=_F.LABEL_OPTIONAL, type=_F.TYPE_STRING
    )
    tag_value.field.add(
        name="value", number=2, label=_F.LABEL_OPTIONAL, type=_F.TYPE_FLOAT
    )
    hparam = record.nested_type.add(name="HParam")
    info = hparam.nested_type.add(name="HparamInfo")
    info.oneof_decl.add(name="type")
    for name, number, kind in (
        ("int_value", 1, _F.TYPE_INT64),
        ("float_value", 2, _F.TYPE_DOUBLE),
        ("string_value", 3, _F.TYPE_STRING),
    ):
        info.field.add(
            name=name,
            number=number,
            label=_F.LABEL_OPTIONAL,
            type=kind,
            oneof_index=0,
        )
    info.field.add(
        name="name", number=4, label=_F.LABEL_OPTIONAL, type=_F.TYPE_STRING
    )
    for name, number in (("hparamInfos", 1), ("metricInfos", 2)):
        hparam.field.add(
            name=name,
            number=number,
            label=_F.LABEL_REPEATED,
            type=_F.TYPE_MESSAGE,
            type_name=f".{package}.Record.HParam.HparamInfo",
        )
    hparam.field.add(
        name="name", number=3, label=_F.LABEL_OPTIONAL, type=_F.TYPE_STRING
    )
    value = record.nested_type.add(name="Value")
    value.oneof_decl.add(name="one_value")
    for name, number, kind in (
        ("id", 1, _F.TYPE_INT64),
        ("tag", 2, _F.TYPE_STRING),
        ("timestamp", 3, _F.TYPE_INT64),
    ):
        value.field.add(
            name=name, number=number, label=_F.LABEL_OPTIONAL, type=kind
        )
    for name, number, kind, type_name in (
        ("value", 4, _F.TYPE_FLOAT, ""),
        ("image", 5, _F.TYPE_BYTES, ""),
        ("audio", 6, _F.TYPE_BYTES, ""),
        ("embeddings", 7, _F.TYPE_BYTES, ""),
        ("histogram", 8, _F.TYPE_MESSAGE, "Histogram"),
        ("pr_curve", 9, _F.TYPE_BYTES, ""),
        ("meta_data", 10, _F.TYPE_MESSAGE, "MetaData"),
        ("roc_curve", 11, _F.TYPE_BYTES, ""),
        ("text", 12, _F.TYPE_BYTES, ""),
        ("hparam", 13, _F.TYPE_MESSAGE, "HParam"),
        ("tag_value", 14, _F.TYPE_MESSAGE, "TagValue"),
    ):
        field = value.field.add(
            name=name,
            number=number,
            label=_F.LABEL_OPTIONAL,
            type=kind,
            oneof_index=0,
        )
        if type_name:
            field.type_name = f".{package}.Record.{type_name}"
    if extra:
        for name, number, kind in (
            ("x_varint", 15, _F.TYPE_UINT64),
            ("x_fixed", 16, _F.TYPE_FIXED64),
            ("x_bytes", 17, _F.TYPE_BYTES),
        ):
            value.field.add(
                name=name, number=number, label=_F.LABEL_OPTIONAL, type=kind
            )
        histogram.field.add(
            name="x_fixed32",
            number=3,
            label=_F.LABEL_OPTIONAL,
            type=_F.TYPE_FIXED32,
        )
        meta.field.add(
            name="x_varint",
            number=2,
            label=_F.LABEL_OPTIONAL,
            type=_F.TYPE_INT32,
        )
        tag_value.field.add(
            name="x_bytes",
            number=3,
            label=_F.LABEL_OPTIONAL,
            type=_F.TYPE_BYTES,
        )
    # The default pool, as generated code uses: with a pool of their own,
    # protobuf 4.22-4.24's upb backend crashes on nested message fields
    # (protobuf issue #12047). Adding the same file again is allowed.
    pool = descriptor_pool.Default()
    pool.AddSerializedFile(file_proto.SerializeToString())
    return _message_class(pool.FindMessageTypeByName(f"{package}.Record"))
