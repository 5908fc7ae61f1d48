"""tb_multiframework: compare PyTorch, TensorFlow/Keras and Paddle runs in TensorBoard."""

__version__ = "0.1.0"
