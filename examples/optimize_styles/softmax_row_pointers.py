# PyTorch equivalent of softmax_row_pointers.cu (KernelBench style).
import torch
import torch.nn as nn

ROWS = 16384
COLS = 1024


class Model(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=1)


def get_inputs():
    return [torch.rand(ROWS, COLS) * 16 - 8]


def get_init_inputs():
    return []
