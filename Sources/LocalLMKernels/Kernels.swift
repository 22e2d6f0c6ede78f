/// The numeric kernels of the runtime: (de)quantization, quantized matrix-vector and matrix-matrix
/// products, norms, activations, RoPE and the small vector ops attention needs.
///
/// Every function works on caller-owned memory through unsafe pointers, with the element counts as
/// arguments; nothing here allocates per call except through a ``KernelScratch``. Formulas and rounding
/// follow ggml (llama.cpp's CPU backend) so that logits match llama.cpp's closely.
public enum Kernels {}
