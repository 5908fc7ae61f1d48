"""Framework and writer detection from file names, writers and layout."""

import pytest

from tb_multiframework.ingest.detect import classify_file_name, detect_run


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        (
            "events.out.tfevents.1795970982.vm.15227.0",
            "torch.utils.tensorboard",
        ),
        ("events.out.tfevents.1795970988.vm.15504.0.v2", "tensorflow"),
        ("events.out.tfevents.1795971005.vm", "tensorboardX"),
        ("events.out.tfevents.1795971005.gpu-3.example.com", "tensorboardX"),
        (
            "events.out.tfevents.1795970982.node.example.com.77.1",
            "torch.utils.tensorboard",
        ),
        ("notes.txt", ""),
    ],
)
def test_file_names(name, kind):
    assert classify_file_name(name) == kind


def test_declared_writer_beats_an_ambiguous_file_name():
    # tensorboardX on a host named by its IP looks like a torch file name.
    name = "events.out.tfevents.1700000000.10.0.0.1"
    assert classify_file_name(name) == "torch.utils.tensorboard"
    found = detect_run(
        "r",
        format="tfevents",
        file_names=[name],
        tags=[],
        source_writers=["tensorflow.core.util.events_writer"],
    )
    assert (found.framework, found.writer) == ("tensorflow", "tf.summary")


def test_keras_needs_subrun_name_and_keras_tags():
    v2 = ["events.out.tfevents.1.h.2.3.v2"]
    keras = detect_run(
        "exp/train", format="tfevents", file_names=v2, tags=["epoch_loss"]
    )
    assert (keras.writer, keras.group) == ("keras", "exp")
    plain = detect_run(
        "exp/train", format="tfevents", file_names=v2, tags=["loss"]
    )
    assert (plain.writer, plain.group) == ("tf.summary", "exp/train")
    top = detect_run(
        "train", format="tfevents", file_names=v2, tags=["epoch_loss"]
    )
    assert top.group == "."


def test_visualdl_is_paddle_and_unknown_names_are_unknown():
    vdl = detect_run(
        "p", format="visualdl", file_names=["vdlrecords.1.log"], tags=[]
    )
    assert (vdl.framework, vdl.writer) == ("paddle", "visualdl")
    odd = detect_run(
        "o", format="tfevents", file_names=["my.tfevents"], tags=[]
    )
    assert (odd.framework, odd.writer) == ("unknown", "")
