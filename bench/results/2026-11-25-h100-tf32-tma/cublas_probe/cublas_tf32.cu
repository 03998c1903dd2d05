// which kernels cublasGemmEx FAST_TF32 runs at 4096^3 (probe, not part of cupat)
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4096;
    int mode = argc > 2 ? atoi(argv[2]) : 0; // 0 FAST_TF32, 1 32F with TF32 math mode
    float *A, *B, *C;
    cudaMalloc(&A, (size_t)n * n * 4); cudaMalloc(&B, (size_t)n * n * 4); cudaMalloc(&C, (size_t)n * n * 4);
    cudaMemset(A, 0, (size_t)n * n * 4); cudaMemset(B, 0, (size_t)n * n * 4);
    cublasHandle_t h; cublasCreate(&h);
    float one = 1, zero = 0;
    for (int i = 0; i < 3; i++) {
        cublasStatus_t s = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, CUDA_R_32F, n, A, CUDA_R_32F, n,
                                        &zero, C, CUDA_R_32F, n, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT);
        if (s) printf("status %d\n", (int)s);
    }
    cudaDeviceSynchronize();
    printf("done %s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
