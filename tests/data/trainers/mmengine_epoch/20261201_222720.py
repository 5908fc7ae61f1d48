custom_hooks = [
    dict(by_epoch=True, type='LoopContext'),
]
default_hooks = dict(
    checkpoint=dict(interval=1000000, type='CheckpointHook'),
    logger=dict(interval=2, type='LoggerHook'))
experiment_name = 'mmengine_epoch'
log_level = 'WARNING'
log_processor = dict()
model = dict(type='TinyNet')
optim_wrapper = dict(optimizer=dict(lr=0.1, type='SGD'))
param_scheduler = dict(
    by_epoch=True, milestones=[
        2,
    ], type='MultiStepLR')
randomness = dict(seed=0)
train_cfg = dict(by_epoch=True, max_epochs=4, val_interval=1)
train_dataloader = dict(
    batch_size=8,
    collate_fn=dict(type='default_collate'),
    dataset=dict(split='train', type='TinyData'),
    sampler=dict(shuffle=True, type='DefaultSampler'))
val_cfg = dict()
val_dataloader = dict(
    batch_size=8,
    collate_fn=dict(type='default_collate'),
    dataset=dict(split='val', type='TinyData'),
    sampler=dict(shuffle=False, type='DefaultSampler'))
val_evaluator = dict(type='TinyAccuracy')
visualizer = dict(
    name='vis_mmengine_epoch',
    type='Visualizer',
    vis_backends=[
        dict(type='TensorboardVisBackend'),
    ])
work_dir = '/work/wt/i19/tests/data/trainers/mmengine_epoch'
