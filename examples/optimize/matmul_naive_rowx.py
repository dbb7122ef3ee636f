# PyTorch equivalent of matmul_naive_rowx.cu (KernelBench style). FP32 without
# TF32, like the kernel.
import torch
import torch.nn as nn

M = 2048
N = 2048
K = 2048


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.backends.cuda.matmul.allow_tf32 = False

    def forward(self, A, B):
        return torch.matmul(A, B)


def get_inputs():
    return [torch.rand(M, K) * 2 - 1, torch.rand(K, N) * 2 - 1]


def get_init_inputs():
    return []
