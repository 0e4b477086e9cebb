from .common import is_cuda, is_flashinfer_available, is_sm90_supported, is_sm100_supported  # noqa: F401
