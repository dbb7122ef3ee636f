# PyTorch equivalent of scale_bias_2d.cu (KernelBench style).
import torch
import torch.nn as nn

ROWS = COLS = 8192


class Model(nn.Module):
    def forward(self, x, scale, bias):
        return x * scale[:, None] + bias[None, :]


def get_inputs():
    return [torch.rand(ROWS, COLS) * 2 - 1, torch.rand(ROWS) * 2 - 1, torch.rand(COLS) * 2 - 1]


def get_init_inputs():
    return []
