# PyTorch equivalent of gemm_beta_accumulate.cu (KernelBench style): C = alpha A B + beta C, fp32 (no TF32).
import torch
import torch.nn as nn

M = N = K = 2048
ALPHA = 1.5
BETA = -0.5


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.backends.cuda.matmul.allow_tf32 = False

    def forward(self, a, b, c):
        return torch.addmm(c, a, b, beta=BETA, alpha=ALPHA)


def get_inputs():
    return [torch.rand(M, K) * 2 - 1, torch.rand(K, N) * 2 - 1, torch.rand(M, N) * 2 - 1]


def get_init_inputs():
    return []
