# PyTorch equivalent of saxpy_grid_stride.cu (KernelBench style).
import torch
import torch.nn as nn

N = 64 << 20
A = 1.25


class Model(nn.Module):
    def forward(self, x, y):
        return A * x + y


def get_inputs():
    return [torch.rand(N) * 2 - 1, torch.rand(N) * 2 - 1]


def get_init_inputs():
    return []
