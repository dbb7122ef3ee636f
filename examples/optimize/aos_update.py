# PyTorch equivalent of aos_update.cu (KernelBench style): the particles as an
# (N, 8) tensor [x, y, z, vx, vy, vz, mass, charge].
import torch
import torch.nn as nn

N = 16 << 20
E = (0.3, -0.2, 0.1)
DT = 0.01


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, p):
        e = torch.tensor(E, device=p.device, dtype=p.dtype)
        a = p[:, 7:8] / p[:, 6:7]
        v = p[:, 3:6] + a * e * DT
        x = p[:, 0:3] + v * DT
        return torch.cat([x, v, p[:, 6:8]], dim=1)


def get_inputs():
    p = torch.rand(N, 8) * 2 - 1
    p[:, 6] = 1 + p[:, 6].abs()
    return [p]


def get_init_inputs():
    return []
