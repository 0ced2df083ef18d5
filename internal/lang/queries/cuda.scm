; extends: cpp
; CUDA. The grammar is C++'s with CUDA's qualifiers and launch syntax, so
; C++'s query serves: a __global__ kernel or __device__ function is a
; function, classes, namespaces and methods as in C++.
