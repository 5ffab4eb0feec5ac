"""The answers to the tutorials' exercises, in the order of each notebook's ``exercise`` cells.
They live here, not in the notebooks, so a learner never sees them; ``test_tutorials.py`` puts
them in the exercise cells, runs the notebook and expects every check to print ✔."""

SOLUTIONS = {
    "00_start_here": ['total_device = "GPU:0"\ncopies = 2', 'DEVICE = "/cpu:0"'],
    "01_placement_log": ["on_gpu = 5"],
    "02_colocate_with": ['assign_sub_device = "GPU:1"\nmul_device = "CPU:0"', "tf1_copies = 0"],
    "03_device_stack": ['x_device = "/job:ps/task:2/device:GPU:1"', 'read_device = "CPU:0"'],
    "04_mixed_sums": ["copies_on_gpu2 = 1"],
    "05_gradients": ["colocated_copies = 2", 'update_device = "GPU:0"'],
    "06_errors": ['config = tf.ConfigProto(device_count={"CPU": 2})', 'culprit = "z"'],
    "07_parameter_servers": ["third_task = 0"],
    "08_mirrored_strategy": ["four_towers = [21, 22, 23, 24]", "reduce_copies = 2"],
    # GPU:1 is a real card only on a machine where CuPy sees at least two GPUs.
    "09_real_gpu": ['gpu1_is = "real" if gpu.physical_gpu_count() >= 2 else "simulated"', 'fetched_in = "host"'],
    "10_towers": ["copies_gpu0 = 8", 'faster_average_on = "/gpu:0"'],
    "11_parameter_server_cluster": ["copies_per_step = 4", "chief_reads = 13.0", 'lost = {"global_step", "b"}'],
    "12_embeddings": ["lookup_bytes = 128 * 64 * 4", "ps_task_for_7 = 1"],
    "13_debug_a_real_model": ["copies_gpu0_to_gpu1 = 10", "copies_after_fix = 44", 'filter_came_from = "/gpu:0"'],
}
