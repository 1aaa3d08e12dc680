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
import triton
import triton.language as tl
from torch._inductor.runtime.triton_heuristics import start_graph, end_graph
from torch._C import _cuda_getCurrentRawStream as get_raw_stream

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


# kernel path: /root/.cache/memprobe/inductor/xo/cxoopei3kluvmfliv6h2f7komvokaduhm3qr3mpdswcrbe5l3kj3.py
# Topologically Sorted Source Nodes: [linear, silu, linear_1, h, view_7, mul_1, mul_2, convert_element_type_16, reciprocal, mul_3, mul_4, sub, mul_5, add_4, mul_6, convert_element_type_18], Original ATen: [aten._unsafe_view, aten.silu, aten.mul, aten.view, aten.silu_backward]
# Source node to ATen node mapping:
#   add_4 => add_4
#   convert_element_type_16 => convert_element_type_16
#   convert_element_type_18 => convert_element_type_18
#   h => mul
#   linear => view_1
#   linear_1 => view_3
#   mul_1 => mul_1
#   mul_2 => mul_2
#   mul_3 => mul_3
#   mul_4 => mul_4
#   mul_5 => mul_5
#   mul_6 => mul_6
#   reciprocal => reciprocal
#   silu => add, convert_element_type_2, convert_element_type_3, div, exp, neg
#   sub => sub
#   view_7 => view_7
# Graph fragment:
#   %mm : Tensor "bf16[512, 256][256, 1]cuda:0" = PlaceHolder[target=mm]
#   %mm_1 : Tensor "bf16[512, 256][256, 1]cuda:0" = PlaceHolder[target=mm_1]
#   %mm_4 : Tensor "bf16[512, 256][256, 1]cuda:0" = PlaceHolder[target=mm_4]
#   %view_1 : Tensor "bf16[4, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm, [4, 128, 256]), kwargs = {})
#   %convert_element_type_2 : Tensor "f32[4, 128, 256][32768, 256, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%view_1, torch.float32), kwargs = {})
#   %neg : Tensor "f32[4, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.neg.default](args = (%convert_element_type_2,), kwargs = {})
#   %exp : Tensor "f32[4, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.exp.default](args = (%neg,), kwargs = {})
#   %add : Tensor "f32[4, 128, 256][32768, 256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.add.Tensor](args = (%exp, 1), kwargs = {})
#   %div : Tensor "f32[4, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.div.Tensor](args = (%convert_element_type_2, %add), kwargs = {})
#   %convert_element_type_3 : Tensor "bf16[4, 128, 256][32768, 256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%div, torch.bfloat16), kwargs = {})
#   %view_3 : Tensor "bf16[4, 128, 256][32768, 256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_1, [4, 128, 256]), kwargs = {})
#   %mul : Tensor "bf16[4, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_3, %view_3), kwargs = {})
#   %view_7 : Tensor "bf16[4, 128, 256][32768, 256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_4, [4, 128, 256]), kwargs = {})
#   %mul_1 : Tensor "bf16[4, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%view_7, %convert_element_type_3), kwargs = {})
#   %mul_2 : Tensor "bf16[4, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%view_7, %view_3), kwargs = {})
#   %convert_element_type_16 : Tensor "f32[4, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_2, torch.float32), kwargs = {})
#   %reciprocal : Tensor "f32[4, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%add,), kwargs = {})
#   %mul_3 : Tensor "f32[4, 128, 256][32768, 256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal, 1), kwargs = {})
#   %mul_4 : Tensor "f32[4, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_16, %mul_3), kwargs = {})
#   %sub : Tensor "f32[4, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (1, %mul_3), kwargs = {})
#   %mul_5 : Tensor "f32[4, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_2, %sub), kwargs = {})
#   %add_4 : Tensor "f32[4, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mul_5, 1), kwargs = {})
#   %mul_6 : Tensor "f32[4, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_4, %add_4), kwargs = {})
#   %convert_element_type_18 : Tensor "bf16[4, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_6, torch.bfloat16), kwargs = {})
#   return %mul,%mul_1,%convert_element_type_18
triton_poi_fused__unsafe_view_mul_silu_silu_backward_view_0 = async_compile.triton('triton_poi_fused__unsafe_view_mul_silu_silu_backward_view_0', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 131072}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*bf16', 'in_ptr1': '*bf16', 'in_ptr2': '*bf16', 'out_ptr0': '*bf16', 'out_ptr1': '*bf16', 'out_ptr2': '*bf16', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused__unsafe_view_mul_silu_silu_backward_view_0', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 3, 'num_store': 3, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 2359296}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused__unsafe_view_mul_silu_silu_backward_view_0(in_ptr0, in_ptr1, in_ptr2, out_ptr0, out_ptr1, out_ptr2, xnumel, XBLOCK : tl.constexpr):
    xnumel = 131072
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), None).to(tl.float32)
    tmp8 = tl.load(in_ptr1 + (x0), None).to(tl.float32)
    tmp10 = tl.load(in_ptr2 + (x0), None).to(tl.float32)
    tmp1 = tmp0.to(tl.float32)
    tmp2 = -tmp1
    tmp3 = libdevice.exp(tmp2)
    tmp4 = tl.full([1], 1.0, tl.float32)
    tmp5 = tmp3 + tmp4
    tmp6 = (tmp1 / tmp5)
    tmp7 = tmp6.to(tl.float32)
    tmp9 = tmp7 * tmp8
    tmp11 = tmp10 * tmp7
    tmp12 = tmp10 * tmp8
    tmp13 = tmp12.to(tl.float32)
    tmp14 = tl.full([1], 1, tl.int32)
    tmp15 = (tmp14 / tmp5)
    tmp16 = tmp15 * tmp4
    tmp17 = tmp13 * tmp16
    tmp18 = tmp4 - tmp16
    tmp19 = tmp1 * tmp18
    tmp20 = tmp19 + tmp4
    tmp21 = tmp17 * tmp20
    tmp22 = tmp21.to(tl.float32)
    tl.store(out_ptr0 + (x0), tmp9, None)
    tl.store(out_ptr1 + (x0), tmp11, None)
    tl.store(out_ptr2 + (x0), tmp22, None)
''', device_str='cuda')


# kernel path: /root/.cache/memprobe/inductor/pe/cpewlfdysxbsstn2pnfjll65rk45op632el3jujwilz23vtdfifx.py
# Topologically Sorted Source Nodes: [view_9, add_2, view_11, add_5], Original ATen: [aten.view, aten.add]
# Source node to ATen node mapping:
#   add_2 => add_2
#   add_5 => add_5
#   view_11 => view_11
#   view_9 => view_9
# Graph fragment:
#   %tangents_1 : Tensor "bf16[4, 128, 32][4096, 32, 1]cuda:0" = PlaceHolder[target=tangents_1]
#   %mm_6 : Tensor "bf16[512, 32][32, 1]cuda:0" = PlaceHolder[target=mm_6]
#   %mm_8 : Tensor "bf16[512, 32][32, 1]cuda:0" = PlaceHolder[target=mm_8]
#   %view_9 : Tensor "bf16[4, 128, 32][4096, 32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_6, [4, 128, 32]), kwargs = {})
#   %add_2 : Tensor "bf16[4, 128, 32][4096, 32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%tangents_1, %view_9), kwargs = {})
#   %view_11 : Tensor "bf16[4, 128, 32][4096, 32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_8, [4, 128, 32]), kwargs = {})
#   %add_5 : Tensor "bf16[4, 128, 32][4096, 32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%add_2, %view_11), kwargs = {})
#   return %add_5
triton_poi_fused_add_view_1 = async_compile.triton('triton_poi_fused_add_view_1', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 16384}, 
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*bf16', 'in_ptr0': '*bf16', 'in_ptr1': '*bf16', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_add_view_1', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 3, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 163840}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_add_view_1(in_out_ptr0, in_ptr0, in_ptr1, xnumel, XBLOCK : tl.constexpr):
    xnumel = 16384
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), None).to(tl.float32)
    tmp1 = tl.load(in_out_ptr0 + (x0), None).to(tl.float32)
    tmp3 = tl.load(in_ptr1 + (x0), None).to(tl.float32)
    tmp2 = tmp0 + tmp1
    tmp4 = tmp2 + tmp3
    tl.store(in_out_ptr0 + (x0), tmp4, None)
''', device_str='cuda')


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
        primals_1, primals_2, primals_3, primals_4, tangents_1 = args
        args.clear()
        assert_size_stride(primals_1, (4, 128, 32), (4096, 32, 1))
        assert_size_stride(primals_2, (256, 32), (32, 1))
        assert_size_stride(primals_3, (256, 32), (32, 1))
        assert_size_stride(primals_4, (32, 256), (256, 1))
        assert_size_stride(tangents_1, (4, 128, 32), (4096, 32, 1))
        with torch.cuda._DeviceGuard(0):
            torch.cuda.set_device(0)
            buf0 = empty_strided_cuda((512, 256), (256, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [linear], Original ATen: [aten.t, aten.view, aten.mm]
            extern_kernels.mm(reinterpret_tensor(primals_1, (512, 32), (32, 1), 0), reinterpret_tensor(primals_2, (32, 256), (1, 32), 0), out=buf0)
            buf1 = empty_strided_cuda((512, 256), (256, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [linear, linear_1], Original ATen: [aten.view, aten.t, aten.mm]
            extern_kernels.mm(reinterpret_tensor(primals_1, (512, 32), (32, 1), 0), reinterpret_tensor(primals_3, (32, 256), (1, 32), 0), out=buf1)
            buf4 = empty_strided_cuda((512, 256), (256, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [view_6, linear_2, permute_5, mm_4], Original ATen: [aten.view, aten.t, aten.mm]
            extern_kernels.mm(reinterpret_tensor(tangents_1, (512, 32), (32, 1), 0), primals_4, out=buf4)
            del primals_4
            buf2 = empty_strided_cuda((4, 128, 256), (32768, 256, 1), torch.bfloat16)
            buf5 = empty_strided_cuda((4, 128, 256), (32768, 256, 1), torch.bfloat16)
            buf8 = empty_strided_cuda((4, 128, 256), (32768, 256, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [linear, silu, linear_1, h, view_7, mul_1, mul_2, convert_element_type_16, reciprocal, mul_3, mul_4, sub, mul_5, add_4, mul_6, convert_element_type_18], Original ATen: [aten._unsafe_view, aten.silu, aten.mul, aten.view, aten.silu_backward]
            stream0 = get_raw_stream(0)
            triton_poi_fused__unsafe_view_mul_silu_silu_backward_view_0.run(buf0, buf1, buf4, buf2, buf5, buf8, 131072, stream=stream0)
            del buf0
            del buf1
            del buf4
            buf3 = empty_strided_cuda((32, 256), (256, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [view_6, permute_3, linear, silu, linear_1, h, linear_2, mm_3], Original ATen: [aten.view, aten.t, aten._unsafe_view, aten.silu, aten.mul, aten.mm]
            extern_kernels.mm(reinterpret_tensor(tangents_1, (32, 512), (1, 32), 0), reinterpret_tensor(buf2, (512, 256), (256, 1), 0), out=buf3)
            del buf2
            buf6 = empty_strided_cuda((256, 32), (32, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [linear, silu, view_7, mul_1, view_8, permute_7, mm_5], Original ATen: [aten.view, aten._unsafe_view, aten.silu, aten.mul, aten.t, aten.mm]
            extern_kernels.mm(reinterpret_tensor(buf5, (256, 512), (1, 256), 0), reinterpret_tensor(primals_1, (512, 32), (32, 1), 0), out=buf6)
            buf7 = empty_strided_cuda((512, 32), (32, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [linear, silu, linear_1, view_7, mul_1, view_8, permute_9, mm_6], Original ATen: [aten._unsafe_view, aten.silu, aten.t, aten.view, aten.mul, aten.mm]
            extern_kernels.mm(reinterpret_tensor(buf5, (512, 256), (256, 1), 0), primals_3, out=buf7)
            del buf5
            del primals_3
            buf9 = empty_strided_cuda((256, 32), (32, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [linear, silu, linear_1, view_7, mul_2, convert_element_type_16, reciprocal, mul_3, mul_4, sub, mul_5, add_4, mul_6, convert_element_type_18, view_10, permute_11, mm_7], Original ATen: [aten.view, aten._unsafe_view, aten.silu, aten.mul, aten.silu_backward, aten.t, aten.mm]
            extern_kernels.mm(reinterpret_tensor(buf8, (256, 512), (1, 256), 0), reinterpret_tensor(primals_1, (512, 32), (32, 1), 0), out=buf9)
            del primals_1
            buf10 = empty_strided_cuda((512, 32), (32, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [linear, silu, linear_1, view_7, mul_2, convert_element_type_16, reciprocal, mul_3, mul_4, sub, mul_5, add_4, mul_6, convert_element_type_18, view_10, permute_13, mm_8], Original ATen: [aten.t, aten._unsafe_view, aten.silu, aten.view, aten.mul, aten.silu_backward, aten.mm]
            extern_kernels.mm(reinterpret_tensor(buf8, (512, 256), (256, 1), 0), primals_2, out=buf10)
            del buf8
            del primals_2
            buf11 = reinterpret_tensor(buf7, (4, 128, 32), (4096, 32, 1), 0); del buf7  # reuse
            # Topologically Sorted Source Nodes: [view_9, add_2, view_11, add_5], Original ATen: [aten.view, aten.add]
            stream0 = get_raw_stream(0)
            triton_poi_fused_add_view_1.run(buf11, tangents_1, buf10, 16384, stream=stream0)
            del buf10
            del tangents_1
        return (buf11, buf9, buf6, buf3, )

runner = Runner(partitions=[])
call = runner.call
recursively_apply_fns = runner.recursively_apply_fns


def get_args():
    from torch._dynamo.testing import rand_strided
    primals_1 = rand_strided((4, 128, 32), (4096, 32, 1), device='cuda:0', dtype=torch.bfloat16)
    primals_2 = rand_strided((256, 32), (32, 1), device='cuda:0', dtype=torch.bfloat16)
    primals_3 = rand_strided((256, 32), (32, 1), device='cuda:0', dtype=torch.bfloat16)
    primals_4 = rand_strided((32, 256), (256, 1), device='cuda:0', dtype=torch.bfloat16)
    tangents_1 = rand_strided((4, 128, 32), (4096, 32, 1), device='cuda:0', dtype=torch.bfloat16)
    return [primals_1, primals_2, primals_3, primals_4, tangents_1]


def benchmark_compiled_module(args, times=10, repeat=10):
    from torch._inductor.utils import print_performance
    fn = lambda: call(list(args))
    return print_performance(fn, times=times, repeat=repeat)


if __name__ == "__main__":
    from torch._inductor.wrapper_benchmark import compiled_module_main
    args = get_args()
    compiled_module_main('None', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))
