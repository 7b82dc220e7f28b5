"""Kata 02 in PyTorch: a safe softmax (F.softmax alone gives NaN on an all -inf slice)."""
import torch


def softmax(x, axis=-1):
    x = torch.as_tensor(x)
    if not x.is_floating_point():
        x = x.double()
    peak = x.amax(dim=axis, keepdim=True)
    peak = torch.where(torch.isneginf(peak), torch.zeros_like(peak), peak)
    e = torch.exp(x - peak)
    total = e.sum(dim=axis, keepdim=True)
    return torch.where(total != 0, e / total, torch.zeros_like(e))
