# PyTorch equivalent of bias_relu_broadcast.cu (KernelBench style).
import torch
import torch.nn as nn

ROWS = 16384
COLS = 4096


class Model(nn.Module):
    def forward(self, a, b, bias):
        return torch.relu(a * b + bias)


def get_inputs():
    return [torch.rand(ROWS, COLS) * 2 - 1, torch.rand(ROWS, COLS) * 2 - 1, torch.rand(COLS) * 2 - 1]


def get_init_inputs():
    return []
