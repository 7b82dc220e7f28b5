"""Kata 02 in PyTorch without subtracting the max: exp overflows to inf / inf."""
import torch


def softmax(x, axis=-1):
    x = torch.as_tensor(x)
    if not x.is_floating_point():
        x = x.double()
    e = torch.exp(x)
    return e / e.sum(dim=axis, keepdim=True)
