print("LocalLM benchmarks: filled by the performance issue")
