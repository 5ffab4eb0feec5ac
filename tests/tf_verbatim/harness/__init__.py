"""The harness that runs TensorFlow's own test files, unedited, against devlab (see ../README.md)."""
