# PyTorch equivalent of register_heavy.cu (KernelBench style): batched 4x4
# inverse, computed in double like the kernel's intermediates.
import torch
import torch.nn as nn

N = 8 << 20


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A):
        return torch.linalg.inv(A.double()).float()


def get_inputs():
    return [torch.rand(N, 4, 4) * 2 - 1 + 4 * torch.eye(4)]


def get_init_inputs():
    return []
