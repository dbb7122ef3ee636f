# PyTorch equivalent of transpose_naive.cu (KernelBench style).
import torch
import torch.nn as nn

W = 8192
H = 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        # x is H x W (row-major); the kernel writes its W x H transpose.
        return x.t().contiguous()


def get_inputs():
    return [torch.rand(H, W) * 2 - 1]


def get_init_inputs():
    return []
