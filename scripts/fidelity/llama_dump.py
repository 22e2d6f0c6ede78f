"""Dump llama.cpp intermediate tensors (F32) via cb_eval. Usage as module."""
import ctypes, numpy as np
import llama_cpp as L

def tensor_info(p):
    b = ctypes.string_at(p, 320)
    typ = int.from_bytes(b[0:4], 'little')
    ne = np.frombuffer(b[16:48], dtype=np.int64).tolist()
    nb = np.frombuffer(b[48:80], dtype=np.uint64).tolist()
    data = int.from_bytes(b[248:256], 'little')
    name = b[256:320].split(b'\0')[0].decode(errors='replace')
    return typ, ne, nb, data, name

@L.llama_log_callback
def _quiet(level, text, ud): pass

class Dumper:
    def __init__(self, path, n_ctx=4096, threads=2, repack=True):
        L.llama_backend_init()
        L.llama_log_set(_quiet, ctypes.c_void_p(0))
        mp = L.llama_model_default_params()
        mp.use_extra_bufts = repack  # False: no weight repacking (CPU_REPACK buffers)
        self.model = L.llama_model_load_from_file(path.encode(), mp)
        self.store = {}
        self.names = []
        self.want = None
        @L.ggml_backend_sched_eval_callback
        def cb(t, ask, ud):
            typ, ne, nb, data, name = tensor_info(t)
            if ask:
                return True
            if data and typ in (0, 1):
                ct = ctypes.c_float if typ == 0 else ctypes.c_uint16
                raw = np.ctypeslib.as_array((ct * 1).from_address(data))
                a = np.lib.stride_tricks.as_strided(raw, shape=tuple(reversed(ne)), strides=tuple(int(x) for x in reversed(nb)))
                a = np.array(a)
                if typ == 1: a = a.view(np.float16).astype(np.float32)
                self.store.setdefault(name, []).append(a)
                self.names.append(name)
            return True
        self.cb = cb
        cp = L.llama_context_default_params()
        cp.n_ctx = n_ctx
        cp.n_threads = cp.n_threads_batch = threads
        cp.flash_attn_type = L.LLAMA_FLASH_ATTN_TYPE_DISABLED
        cp.cb_eval = cb
        self.cp = cp
    def context(self, n_batch):
        self.cp.n_batch = self.cp.n_ubatch = n_batch
        return L.llama_init_from_model(self.model, self.cp)
    def decode(self, ctx, ids):
        arr = (L.llama_token * len(ids))(*ids)
        assert L.llama_decode(ctx, L.llama_batch_get_one(arr, len(ids))) == 0
    def logits(self, ctx, n_vocab):
        p = L.llama_get_logits_ith(ctx, -1)
        return np.ctypeslib.as_array(p, shape=(n_vocab,)).copy()
