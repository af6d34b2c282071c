"""tuning.py —— 由 `tfrig setup` 为 NVIDIA A100-SXM4-80GB（计算能力 8.0） 生成。

在训练脚本开头导入它（或复制需要的部分）：
    from tuning import set_precision, tfrecord_dataset
    set_precision()
    ds = tfrecord_dataset("/data/train-*.tfrecord", parse_fn, batch_size=256)

混合精度（TF 指南 "Mixed precision"）：float16 运算需要 Tensor Core，即计算能力
7.0 或更新；bfloat16 需要 8.0 或更新（NVIDIA），数值范围与 float32 相同，
无需损失缩放。计算能力低于 7.0 时混合精度不会更快，因此保持 float32。
为这块 GPU 规划的精度：mixed_bfloat16（计算能力 8.0 >= 8.0：有 bfloat16 Tensor Core，数值范围与 float32 相同，无需损失缩放）。
模型的最后一层保持 float32： layers.Activation("softmax", dtype="float32").
"""

import tensorflow as tf

FLOAT16_MIN_CC = (7, 0)
BFLOAT16_MIN_CC = (8, 0)
PLANNED_POLICY = "mixed_bfloat16"


def policy_for(cc):
    """The mixed precision policy for a compute capability (major, minor)."""
    if cc >= BFLOAT16_MIN_CC:
        return "mixed_bfloat16"
    if cc >= FLOAT16_MIN_CC:
        return "mixed_float16"
    return "float32"


def set_precision():
    """Sets the global Keras policy from the first GPU's compute capability."""
    gpus = tf.config.list_physical_devices("GPU")
    if not gpus:
        print("tuning: no GPU visible; float32")
        return "float32"
    cc = tf.config.experimental.get_device_details(gpus[0]).get("compute_capability")
    policy = policy_for(tuple(cc)) if cc else (PLANNED_POLICY or "float32")
    if PLANNED_POLICY and policy != PLANNED_POLICY:
        print("tuning: this GPU wants", policy, "not the planned", PLANNED_POLICY)
    tf.keras.mixed_precision.set_global_policy(policy)
    return policy


def tfrecord_dataset(pattern, parse_fn, batch_size, shuffle_files=True):
    """TFRecord shards -> parsed, batched, prefetched batches (TF guide "Better performance
    with the tf.data API"): interleave reads several shards at once, map parses in parallel,
    prefetch overlaps the input with the training step; AUTOTUNE sizes each."""
    autotune = tf.data.AUTOTUNE
    files = tf.data.Dataset.list_files(pattern, shuffle=shuffle_files)
    ds = files.interleave(
        tf.data.TFRecordDataset,
        cycle_length=autotune,
        num_parallel_calls=autotune,
        deterministic=False,
    )
    ds = ds.map(parse_fn, num_parallel_calls=autotune, deterministic=False)
    ds = ds.batch(batch_size, drop_remainder=True)
    return ds.prefetch(autotune)
