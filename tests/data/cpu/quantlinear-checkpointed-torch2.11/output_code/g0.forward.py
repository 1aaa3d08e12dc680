# AOT ID: ['1_forward']
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


cpp_fused_abs_amax_clamp_div_mul_round_0 = async_compile.cpp_pybinding(['const at::BFloat16*', 'at::BFloat16*', 'at::BFloat16*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(const at::BFloat16* in_ptr0,
                       at::BFloat16* out_ptr0,
                       at::BFloat16* out_ptr1)
{
    #pragma omp parallel num_threads(2)
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(256L); x0+=static_cast<int64_t>(1L))
            {
                {
                    float tmp_acc0 = -std::numeric_limits<float>::infinity();
                    at::vec::VectorizedN<float,2> tmp_acc0_vec = at::vec::VectorizedN<float,2>(-std::numeric_limits<float>::infinity());
                    for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(64L); x1+=static_cast<int64_t>(16L))
                    {
                        {
                            if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(64L)))
                            {
                                auto tmp0 = at::vec::Vectorized<at::BFloat16>::loadu(in_ptr0 + static_cast<int64_t>(x1 + 64L*x0), static_cast<int64_t>(16));
                                auto tmp1 = at::vec::convert<float,2,at::BFloat16,1>(tmp0);
                                auto tmp2 = tmp1.abs();
                                tmp_acc0_vec = at::vec::maximum(tmp_acc0_vec, tmp2);
                            }
                        }
                    }
                    tmp_acc0 = max_propagate_nan(tmp_acc0, at::vec::vec_reduce_all<float, 2>([](at::vec::Vectorized<float>& x, at::vec::Vectorized<float>& y) { return at::vec::maximum(x, y); }, tmp_acc0_vec));
                    out_ptr0[static_cast<int64_t>(x0)] = static_cast<at::BFloat16>(tmp_acc0);
                }
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(64L); x1+=static_cast<int64_t>(16L))
                {
                    {
                        if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(64L)))
                        {
                            auto tmp0 = at::vec::Vectorized<at::BFloat16>::loadu(in_ptr0 + static_cast<int64_t>(x1 + 64L*x0), static_cast<int64_t>(16));
                            auto tmp2 = out_ptr0[static_cast<int64_t>(x0)];
                            auto tmp1 = at::vec::convert<float,2,at::BFloat16,1>(tmp0);
                            auto tmp3 = c10::convert<float>(tmp2);
                            auto tmp4 = static_cast<float>(127.0);
                            auto tmp5 = tmp3 / tmp4;
                            auto tmp6 = at::vec::VectorizedN<float,2>(tmp5);
                            auto tmp7 = tmp1 / tmp6;
                            auto tmp8 = tmp7.round();
                            auto tmp9 = (tmp8);
                            auto tmp10 = static_cast<float>(-127.0);
                            auto tmp11 = at::vec::VectorizedN<float,2>(tmp10);
                            auto tmp12 = at::vec::maximum(tmp9, tmp11);
                            auto tmp13 = at::vec::VectorizedN<float,2>(tmp4);
                            auto tmp14 = at::vec::minimum(tmp12, tmp13);
                            auto tmp15 = (tmp14);
                            auto tmp16 = tmp15 * tmp6;
                            auto tmp17 = at::vec::convert<at::BFloat16,1,float,2>(tmp16);
                            tmp17.store(out_ptr1 + static_cast<int64_t>(x1 + 64L*x0), static_cast<int64_t>(16));
                        }
                    }
                }
            }
        }
    }
}
''')


cpp_fused__unsafe_view_abs_amax_clamp_div_mul_relu_round_1 = async_compile.cpp_pybinding(['const at::BFloat16*', 'const at::BFloat16*', 'at::BFloat16*', 'at::BFloat16*', 'at::BFloat16*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(const at::BFloat16* in_ptr0,
                       const at::BFloat16* in_ptr1,
                       at::BFloat16* out_ptr0,
                       at::BFloat16* out_ptr1,
                       at::BFloat16* out_ptr2)
{
    #pragma omp parallel num_threads(2)
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(64L); x0+=static_cast<int64_t>(1L))
            {
                {
                    float tmp_acc0 = -std::numeric_limits<float>::infinity();
                    at::vec::VectorizedN<float,2> tmp_acc0_vec = at::vec::VectorizedN<float,2>(-std::numeric_limits<float>::infinity());
                    for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(256L); x1+=static_cast<int64_t>(16L))
                    {
                        {
                            if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(256L)))
                            {
                                auto tmp0 = at::vec::Vectorized<at::BFloat16>::loadu(in_ptr0 + static_cast<int64_t>(x1 + 256L*x0), static_cast<int64_t>(16));
                                auto tmp1 = at::vec::convert<float,2,at::BFloat16,1>(tmp0);
                                auto tmp2 = tmp1.abs();
                                tmp_acc0_vec = at::vec::maximum(tmp_acc0_vec, tmp2);
                            }
                        }
                    }
                    tmp_acc0 = max_propagate_nan(tmp_acc0, at::vec::vec_reduce_all<float, 2>([](at::vec::Vectorized<float>& x, at::vec::Vectorized<float>& y) { return at::vec::maximum(x, y); }, tmp_acc0_vec));
                    out_ptr0[static_cast<int64_t>(x0)] = static_cast<at::BFloat16>(tmp_acc0);
                }
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(256L); x1+=static_cast<int64_t>(16L))
                {
                    {
                        if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(256L)))
                        {
                            auto tmp0 = at::vec::Vectorized<at::BFloat16>::loadu(in_ptr0 + static_cast<int64_t>(x1 + 256L*x0), static_cast<int64_t>(16));
                            auto tmp2 = out_ptr0[static_cast<int64_t>(x0)];
                            auto tmp1 = at::vec::convert<float,2,at::BFloat16,1>(tmp0);
                            auto tmp3 = c10::convert<float>(tmp2);
                            auto tmp4 = static_cast<float>(127.0);
                            auto tmp5 = tmp3 / tmp4;
                            auto tmp6 = at::vec::VectorizedN<float,2>(tmp5);
                            auto tmp7 = tmp1 / tmp6;
                            auto tmp8 = tmp7.round();
                            auto tmp9 = (tmp8);
                            auto tmp10 = static_cast<float>(-127.0);
                            auto tmp11 = at::vec::VectorizedN<float,2>(tmp10);
                            auto tmp12 = at::vec::maximum(tmp9, tmp11);
                            auto tmp13 = at::vec::VectorizedN<float,2>(tmp4);
                            auto tmp14 = at::vec::minimum(tmp12, tmp13);
                            auto tmp15 = (tmp14);
                            auto tmp16 = tmp15 * tmp6;
                            auto tmp17 = at::vec::convert<at::BFloat16,1,float,2>(tmp16);
                            tmp17.store(out_ptr1 + static_cast<int64_t>(x1 + 256L*x0), static_cast<int64_t>(16));
                        }
                    }
                }
            }
        }
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(16384L); x0+=static_cast<int64_t>(16L))
            {
                {
                    if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(16384L)))
                    {
                        auto tmp0 = at::vec::Vectorized<at::BFloat16>::loadu(in_ptr1 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                        auto tmp1 = at::vec::convert<float,2,at::BFloat16,1>(tmp0);
                        auto tmp2 = at::vec::clamp_min(tmp1, decltype(tmp1)(0));
                        auto tmp3 = at::vec::convert<at::BFloat16,1,float,2>(tmp2);
                        tmp3.store(out_ptr2 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                    }
                }
            }
        }
    }
}
''')


cpp_fused__unsafe_view_add_2 = async_compile.cpp_pybinding(['at::BFloat16*', 'const at::BFloat16*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(at::BFloat16* in_out_ptr0,
                       const at::BFloat16* in_ptr0)
{
    #pragma omp parallel num_threads(2)
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(4096L); x0+=static_cast<int64_t>(16L))
            {
                {
                    if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(4096L)))
                    {
                        auto tmp0 = at::vec::Vectorized<at::BFloat16>::loadu(in_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                        auto tmp2 = at::vec::Vectorized<at::BFloat16>::loadu(in_out_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                        auto tmp1 = at::vec::convert<float,2,at::BFloat16,1>(tmp0);
                        auto tmp3 = at::vec::convert<float,2,at::BFloat16,1>(tmp2);
                        auto tmp4 = tmp1 + tmp3;
                        auto tmp5 = at::vec::convert<at::BFloat16,1,float,2>(tmp4);
                        tmp5.store(in_out_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
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
        primals_1, primals_2, primals_3 = args
        args.clear()
        assert_size_stride(primals_1, (2, 32, 64), (2048, 64, 1))
        assert_size_stride(primals_2, (256, 64), (64, 1))
        assert_size_stride(primals_3, (64, 256), (256, 1))
        buf0 = empty_strided_cpu((256, 1), (1, 256), torch.bfloat16)
        buf1 = empty_strided_cpu((256, 64), (64, 1), torch.bfloat16)
        cpp_fused_abs_amax_clamp_div_mul_round_0(primals_2, buf0, buf1)
        del buf0
        del primals_2
        buf2 = empty_strided_cpu((64, 256), (256, 1), torch.bfloat16)
        # Topologically Sorted Source Nodes: [scale, truediv_1, round_1, q, mul, t, outs], Original ATen: [aten.div, aten.round, aten.clamp, aten.mul, aten.t, aten.view, aten.mm]
        extern_kernels.mm(reinterpret_tensor(primals_1, (64, 64), (64, 1), 0), reinterpret_tensor(buf1, (64, 256), (1, 64), 0), out=buf2)
        buf3 = empty_strided_cpu((64, 1), (1, 64), torch.bfloat16)
        buf5 = reinterpret_tensor(buf1, (64, 256), (256, 1), 0); del buf1  # reuse
        buf4 = empty_strided_cpu((2, 32, 256), (8192, 256, 1), torch.bfloat16)
        cpp_fused__unsafe_view_abs_amax_clamp_div_mul_relu_round_1(primals_3, buf2, buf3, buf5, buf4)
        del buf3
        buf6 = empty_strided_cpu((64, 64), (64, 1), torch.bfloat16)
        # Topologically Sorted Source Nodes: [outs, arg, scale, truediv_1, round_1, q, mul, t], Original ATen: [aten._unsafe_view, aten.relu, aten.div, aten.round, aten.clamp, aten.mul, aten.t, aten.view, aten.mm]
        extern_kernels.mm(reinterpret_tensor(buf4, (64, 256), (256, 1), 0), reinterpret_tensor(buf5, (256, 64), (1, 256), 0), out=buf6)
        del buf4
        del buf5
        buf7 = reinterpret_tensor(buf6, (2, 32, 64), (2048, 64, 1), 0); del buf6  # reuse
        cpp_fused__unsafe_view_add_2(buf7, primals_1)
        return (buf7, primals_1, primals_3, buf2, )

runner = Runner(partitions=[])
call = runner.call
recursively_apply_fns = runner.recursively_apply_fns


def get_args():
    from torch._dynamo.testing import rand_strided
    primals_1 = rand_strided((2, 32, 64), (2048, 64, 1), device='cpu', dtype=torch.bfloat16)
    primals_2 = rand_strided((256, 64), (64, 1), device='cpu', dtype=torch.bfloat16)
    primals_3 = rand_strided((64, 256), (256, 1), device='cpu', dtype=torch.bfloat16)
    return [primals_1, primals_2, primals_3]


def benchmark_compiled_module(args, times=10, repeat=10):
    from torch._inductor.utils import print_performance
    fn = lambda: call(list(args))
    return print_performance(fn, times=times, repeat=repeat)


if __name__ == "__main__":
    from torch._inductor.wrapper_benchmark import compiled_module_main
    args = get_args()
    compiled_module_main('None', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))
