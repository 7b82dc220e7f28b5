"""Kata 02 in PyTorch with F.softmax: an all -inf slice comes back NaN."""
import torch
import torch.nn.functional as F


def softmax(x, axis=-1):
    x = torch.as_tensor(x)
    return F.softmax(x if x.is_floating_point() else x.double(), dim=axis)
