# PyTorch equivalent of matvec_accumulate.cu (KernelBench style).
import torch
import torch.nn as nn

M = 16384
N = 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.backends.cuda.matmul.allow_tf32 = False

    def forward(self, a, x):
        return torch.mv(a, x)


def get_inputs():
    return [torch.rand(M, N) * 2 - 1, torch.rand(N) * 2 - 1]


def get_init_inputs():
    return []
