"""Three launches of torch's FlashAttention-2 forward kernel at head dimension argv[1] (64 or
128) and seq argv[2] (16384 unless given), batch·seq = 16384, heads·d = 2048, not causal: the
launches the ncu experiments (fa-profile.sh, fa-sass-stalls.sh, fa-small-seq.sh) profile,
skipping the first."""
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

d = int(sys.argv[1])
seq = int(sys.argv[2]) if len(sys.argv) > 2 else 16384
heads = 2048 // d
q = torch.randn(16384 // seq, heads, seq, d, device="cuda", dtype=torch.bfloat16)
k = torch.randn_like(q)
v = torch.randn_like(q)
with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
    for _ in range(3):
        torch.nn.functional.scaled_dot_product_attention(q, k, v)
torch.cuda.synchronize()
