"""Tooling that the product never imports: the CPU emulator of our CUDA kernels, their nvcc and NVRTC builds.

The tests and CI use them to compile and run core/kernels/*.cu where there is no GPU.
"""
