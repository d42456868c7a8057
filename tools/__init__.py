"""Tooling around the product that the product never imports: the CPU emulator of our CUDA kernels and
their offline builds (nvcc, NVRTC), used by the tests and CI."""
