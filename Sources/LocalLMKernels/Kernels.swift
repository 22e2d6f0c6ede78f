/// The numeric kernels of the runtime: (de)quantization, quantized matrix-vector and matrix-matrix
/// products, norms, activations, RoPE and the small vector ops attention needs.
///
/// Every function works on caller-owned memory through unsafe pointers, with the element counts as
/// arguments; nothing here allocates per call except through a ``KernelScratch``. Formulas and rounding
/// follow ggml (llama.cpp's CPU backend) so that logits match llama.cpp's closely.
///
/// Build configurations:
/// - plain `swift build`: portable kernels (integer loops that LLVM vectorizes for the baseline ISA);
/// - `swift build -c release -Xswiftc -DLOCALLM_NATIVE -Xswiftc -target-cpu -Xswiftc native`: adds the
///   AVX2/F16C/FMA kernels (`*+AVX2.swift`; needs an x86-64 CPU with AVX2) and lets LLVM use the full
///   vector width everywhere. Both paths are tested against the same references.
public enum Kernels {}
