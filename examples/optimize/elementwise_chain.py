# PyTorch equivalent of elementwise_chain.cu (KernelBench style).
import torch
import torch.nn as nn

N = 64 << 20
BIAS = 0.1


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return torch.relu(x * y + BIAS)


def get_inputs():
    return [torch.rand(N) * 2 - 1, torch.rand(N) * 2 - 1]


def get_init_inputs():
    return []
