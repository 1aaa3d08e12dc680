# AOT ID: ['1_backward']
from ctypes import c_void_p, c_long, c_int
import torch
import math
import random
import os
import tempfile
from math import inf, nan
from cmath import nanj
from torch._inductor.hooks import run_intermediate_hooks
from torch._inductor.utils import maybe_profile
from torch._inductor.codegen.memory_planning import _align as align
from torch import device, empty_strided
from torch._inductor.async_compile import AsyncCompile
from torch._inductor.select_algorithm import extern_kernels

aten = torch.ops.aten
inductor_ops = torch.ops.inductor
_quantized = torch.ops._quantized
assert_size_stride = torch._C._dynamo.guards.assert_size_stride
assert_alignment = torch._C._dynamo.guards.assert_alignment
empty_strided_cpu = torch._C._dynamo.guards._empty_strided_cpu
empty_strided_cpu_pinned = torch._C._dynamo.guards._empty_strided_cpu_pinned
empty_strided_cuda = torch._C._dynamo.guards._empty_strided_cuda
empty_strided_xpu = torch._C._dynamo.guards._empty_strided_xpu
empty_strided_mtia = torch._C._dynamo.guards._empty_strided_mtia
reinterpret_tensor = torch._C._dynamo.guards._reinterpret_tensor
alloc_from_pool = torch.ops.inductor._alloc_from_pool
async_compile = AsyncCompile()
empty_strided_p2p = torch._C._distributed_c10d._SymmetricMemory.empty_strided_p2p


cpp_fused__unsafe_view_relu_threshold_backward_0 = async_compile.cpp_pybinding(['at::BFloat16*', 'at::BFloat16*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(at::BFloat16* in_out_ptr0,
                       at::BFloat16* in_out_ptr1)
{
    #pragma omp parallel num_threads(2)
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(16384L); x0+=static_cast<int64_t>(16L))
            {
                {
                    if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(16384L)))
                    {
                        auto tmp0 = at::vec::Vectorized<at::BFloat16>::loadu(in_out_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                        auto tmp7 = at::vec::Vectorized<at::BFloat16>::loadu(in_out_ptr1 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                        auto tmp1 = at::vec::convert<float,2,at::BFloat16,1>(tmp0);
                        auto tmp2 = at::vec::clamp_min(tmp1, decltype(tmp1)(0));
                        auto tmp3 = at::vec::convert<at::BFloat16,1,float,2>(tmp2);
                        auto tmp4 = static_cast<float>(0.0);
                        auto tmp5 = at::vec::VectorizedN<float,2>(tmp4);
                        auto tmp6 = at::vec::VecMask<float,2>(tmp2 <= tmp5);
                        auto tmp8 = at::vec::convert<float,2,at::BFloat16,1>(tmp7);
                        auto tmp9 = decltype(tmp5)::blendv(tmp8, tmp5, tmp6.template cast<float,2>());
                        auto tmp10 = at::vec::convert<at::BFloat16,1,float,2>(tmp9);
                        tmp3.store(in_out_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                        tmp10.store(in_out_ptr1 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                    }
                }
            }
        }
    }
}
''')


async_compile.wait(globals())
del async_compile

class Runner:
    def __init__(self, partitions):
        self.partitions = partitions

    def recursively_apply_fns(self, fns):
        new_callables = []
        for fn, c in zip(fns, self.partitions):
            new_callables.append(fn(c))
        self.partitions = new_callables

    def call(self, args):
        primals_1, primals_3, mm, tangents_1 = args
        args.clear()
        assert_size_stride(primals_1, (2, 32, 64), (2048, 64, 1))
        assert_size_stride(primals_3, (64, 256), (256, 1))
        assert_size_stride(mm, (64, 256), (256, 1))
        assert_size_stride(tangents_1, (2, 32, 64), (2048, 64, 1))
        buf0 = empty_strided_cpu((64, 256), (256, 1), torch.bfloat16)
        # Topologically Sorted Source Nodes: [matmul], Original ATen: [aten.view, aten.mm]
        extern_kernels.mm(reinterpret_tensor(tangents_1, (64, 64), (64, 1), 0), primals_3, out=buf0)
        del primals_3
        buf1 = reinterpret_tensor(mm, (2, 32, 256), (8192, 256, 1), 0); del mm  # reuse
        buf3 = reinterpret_tensor(buf0, (2, 32, 256), (8192, 256, 1), 0); del buf0  # reuse
        cpp_fused__unsafe_view_relu_threshold_backward_0(buf1, buf3)
        buf2 = empty_strided_cpu((64, 256), (256, 1), torch.bfloat16)
        # Topologically Sorted Source Nodes: [matmul, t, outs, arg, matmul_1], Original ATen: [aten.view, aten.t, aten._unsafe_view, aten.relu, aten.mm]
        extern_kernels.mm(reinterpret_tensor(tangents_1, (64, 64), (1, 64), 0), reinterpret_tensor(buf1, (64, 256), (256, 1), 0), out=buf2)
        del buf1
        del tangents_1
        buf4 = empty_strided_cpu((256, 64), (64, 1), torch.bfloat16)
        # Topologically Sorted Source Nodes: [matmul, le, full_default, where, flatten, t, outs, matmul_1], Original ATen: [aten._unsafe_view, aten.threshold_backward, aten.view, aten.t, aten.mm]
        extern_kernels.mm(reinterpret_tensor(buf3, (256, 64), (1, 256), 0), reinterpret_tensor(primals_1, (64, 64), (64, 1), 0), out=buf4)
        del buf3
        del primals_1
        return (None, buf4, buf2, )

runner = Runner(partitions=[])
call = runner.call
recursively_apply_fns = runner.recursively_apply_fns


def get_args():
    from torch._dynamo.testing import rand_strided
    primals_1 = rand_strided((2, 32, 64), (2048, 64, 1), device='cpu', dtype=torch.bfloat16)
    primals_3 = rand_strided((64, 256), (256, 1), device='cpu', dtype=torch.bfloat16)
    mm = rand_strided((64, 256), (256, 1), device='cpu', dtype=torch.bfloat16)
    tangents_1 = rand_strided((2, 32, 64), (2048, 64, 1), device='cpu', dtype=torch.bfloat16)
    return [primals_1, primals_3, mm, tangents_1]


def benchmark_compiled_module(args, times=10, repeat=10):
    from torch._inductor.utils import print_performance
    fn = lambda: call(list(args))
    return print_performance(fn, times=times, repeat=repeat)


if __name__ == "__main__":
    from torch._inductor.wrapper_benchmark import compiled_module_main
    args = get_args()
    compiled_module_main('None', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))
