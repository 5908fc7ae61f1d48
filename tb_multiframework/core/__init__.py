"""Pure numpy computations: axes, metrics, smoothing, downsampling, diffs, histograms, layouts.

Nothing here imports tensorboard, werkzeug or any deep learning framework; a test checks it.
"""
