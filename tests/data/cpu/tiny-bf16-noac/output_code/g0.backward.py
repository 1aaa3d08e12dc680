# AOT ID: ['0_backward']
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


cpp_fused__unsafe_view_mul_silu_silu_backward_view_0 = async_compile.cpp_pybinding(['at::BFloat16*', 'const at::BFloat16*', 'const at::BFloat16*', 'at::BFloat16*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(at::BFloat16* in_out_ptr0,
                       const at::BFloat16* in_ptr0,
                       const at::BFloat16* in_ptr1,
                       at::BFloat16* out_ptr0)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    #pragma omp parallel
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(8192L); x0+=static_cast<int64_t>(32L))
            {
                {
                    if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(8192L)))
                    {
                        auto tmp0 = at::vec::Vectorized<at::BFloat16>::loadu(in_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(32));
                        auto tmp2 = at::vec::Vectorized<at::BFloat16>::loadu(in_ptr1 + static_cast<int64_t>(x0), static_cast<int64_t>(32));
                        auto tmp14 = at::vec::Vectorized<at::BFloat16>::loadu(in_out_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(32));
                        auto tmp1 = at::vec::convert<float,2,at::BFloat16,1>(tmp0);
                        auto tmp3 = at::vec::convert<float,2,at::BFloat16,1>(tmp2);
                        auto tmp4 = tmp3.neg();
                        auto tmp5 = tmp4.exp();
                        auto tmp6 = static_cast<float>(1.0);
                        auto tmp7 = at::vec::VectorizedN<float,2>(tmp6);
                        auto tmp8 = tmp5 + tmp7;
                        auto tmp9 = tmp3 / tmp8;
                        auto tmp10 = (tmp9);
                        auto tmp11 = tmp1 * tmp10;
                        auto tmp12 = at::vec::convert<at::BFloat16,1,float,2>(tmp11);
                        auto tmp13 = decltype(tmp3)(1)/(decltype(tmp3)(1) + tmp3.neg().exp());
                        auto tmp15 = at::vec::convert<float,2,at::BFloat16,1>(tmp14);
                        auto tmp16 = tmp1 * tmp15;
                        auto tmp17 = (tmp16);
                        auto tmp18 = tmp17 * tmp13;
                        auto tmp19 = tmp7 - tmp13;
                        auto tmp20 = tmp3 * tmp19;
                        auto tmp21 = tmp20 + tmp7;
                        auto tmp22 = tmp18 * tmp21;
                        auto tmp23 = at::vec::convert<at::BFloat16,1,float,2>(tmp22);
                        tmp12.store(out_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(32));
                        tmp23.store(in_out_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(32));
                    }
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
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
        primals_4, view, mm, mm_1, view_4, tangents_1 = args
        args.clear()
        assert_size_stride(tangents_1, (2, 32, 64), (2048, 64, 1), 'input')
        assert_size_stride(view_4, (64, 128), (128, 1), 'input')
        buf0 = empty_strided_cpu((64, 128), (128, 1), torch.bfloat16)
        # Topologically Sorted Source Nodes: [view_6, permute_3, mm_3], Original ATen: [aten.view, aten.t, aten.mm]
        extern_kernels.mm(reinterpret_tensor(tangents_1, (64, 64), (1, 64), 0), view_4, out=buf0)
        del view_4
        assert_size_stride(primals_4, (64, 128), (128, 1), 'input')
        buf1 = empty_strided_cpu((64, 128), (128, 1), torch.bfloat16)
        # Topologically Sorted Source Nodes: [view_6, linear_2, permute_5, mm_4], Original ATen: [aten.view, aten.t, aten.mm]
        extern_kernels.mm(reinterpret_tensor(tangents_1, (64, 64), (64, 1), 0), primals_4, out=buf1)
        del primals_4
        del tangents_1
        assert_size_stride(mm, (64, 128), (128, 1), 'input')
        assert_size_stride(mm_1, (64, 128), (128, 1), 'input')
        buf2 = empty_strided_cpu((2, 32, 128), (4096, 128, 1), torch.bfloat16)
        buf5 = reinterpret_tensor(mm_1, (2, 32, 128), (4096, 128, 1), 0); del mm_1  # reuse
        assert_size_stride(view, (64, 64), (64, 1), 'input')
        cpp_fused__unsafe_view_mul_silu_silu_backward_view_0(buf5, buf1, mm, buf2)
        del mm
        buf3 = reinterpret_tensor(buf1, (128, 64), (64, 1), 0); del buf1  # reuse
        # Topologically Sorted Source Nodes: [view_7, linear, silu, mul_1, view_8, permute_7, mm_5], Original ATen: [aten.view, aten._unsafe_view, aten.silu, aten.mul, aten.t, aten.mm]
        extern_kernels.mm(reinterpret_tensor(buf2, (128, 64), (1, 128), 0), view, out=buf3)
        buf6 = reinterpret_tensor(buf2, (128, 64), (64, 1), 0); del buf2  # reuse
        # Topologically Sorted Source Nodes: [view_7, linear, silu, linear_1, mul_2, convert_element_type_14, mul_3, sub, mul_4, add_2, mul_5, convert_element_type_16, view_9, permute_10, mm_6], Original ATen: [aten.view, aten._unsafe_view, aten.silu, aten.mul, aten.silu_backward, aten.t, aten.mm]
        extern_kernels.mm(reinterpret_tensor(buf5, (128, 64), (1, 128), 0), view, out=buf6)
        del buf5
        del view
        return (buf6, None, buf3, buf0, )

runner = Runner(partitions=[])
call = runner.call
recursively_apply_fns = runner.recursively_apply_fns


def get_args():
    from torch._dynamo.testing import rand_strided
    primals_4 = rand_strided((64, 128), (128, 1), device='cpu', dtype=torch.bfloat16)
    view = rand_strided((64, 64), (64, 1), device='cpu', dtype=torch.bfloat16)
    mm = rand_strided((64, 128), (128, 1), device='cpu', dtype=torch.bfloat16)
    mm_1 = rand_strided((64, 128), (128, 1), device='cpu', dtype=torch.bfloat16)
    view_4 = rand_strided((64, 128), (128, 1), device='cpu', dtype=torch.bfloat16)
    tangents_1 = rand_strided((2, 32, 64), (2048, 64, 1), device='cpu', dtype=torch.bfloat16)
    return [primals_4, view, mm, mm_1, view_4, tangents_1]


def benchmark_compiled_module(args, times=10, repeat=10):
    from torch._inductor.utils import print_performance
    fn = lambda: call(list(args))
    return print_performance(fn, times=times, repeat=repeat, device='cpu')


if __name__ == "__main__":
    from torch._inductor.wrapper_benchmark import compiled_module_main
    args = get_args()
    compiled_module_main('None', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))
