"""Code shared by the edge node and the cloud server: config, model runtimes, prompts, text utils, errors."""
