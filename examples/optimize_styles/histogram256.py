# PyTorch equivalent of histogram256.cu (KernelBench style): 256-bin counts of bytes.
import torch
import torch.nn as nn

N = 64 << 20


class Model(nn.Module):
    def forward(self, data):
        return torch.bincount(data, minlength=256)


def get_inputs():
    # Half of the bytes in 8 bins, as the program's data.
    skewed = torch.randint(96, 104, (N // 2,), dtype=torch.uint8)
    spread = torch.randint(0, 256, (N - N // 2,), dtype=torch.uint8)
    return [torch.cat([skewed, spread])[torch.randperm(N)]]


def get_init_inputs():
    return []
