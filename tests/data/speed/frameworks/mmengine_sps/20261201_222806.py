default_hooks = dict(
    checkpoint=dict(interval=1000000, type='CheckpointHook'),
    logger=dict(interval=5, type='LoggerHook'))
experiment_name = 'mmengine_sps'
log_level = 'WARNING'
log_processor = dict(by_epoch=False, window_size=5)
model = dict(type='SpeedNet')
optim_wrapper = dict(optimizer=dict(lr=0.05, type='SGD'))
randomness = dict(seed=0)
train_cfg = dict(by_epoch=False, max_iters=120)
train_dataloader = dict(
    batch_size=64,
    collate_fn=dict(type='default_collate'),
    dataset=dict(type='SlowData'),
    sampler=dict(shuffle=False, type='DefaultSampler'))
visualizer = dict(
    name='vis_speed',
    type='Visualizer',
    vis_backends=[
        dict(type='TensorboardVisBackend'),
    ])
work_dir = '/work/wt/i23/tests/data/speed/frameworks/mmengine_sps'
