# PyTorch equivalent of strided_copy.cu (KernelBench style).
import torch
import torch.nn as nn

N = 64 << 20
SCALE = 1.7


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x * SCALE


def get_inputs():
    return [torch.rand(N) * 2 - 1]


def get_init_inputs():
    return []
