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


# kernel path: /tmp/torchinductor_root/co/ccoiiv6z34s762266ealairdhgjxh3rbykdha5uif67iakn3gyfc.py
# Topologically Sorted Source Nodes: [full_default], Original ATen: [aten.new_ones]
# Source node to ATen node mapping:
#   full_default => full_default
# Graph fragment:
#   %full_default : Tensor "f32[][]cuda:0"[num_users=6] = call_function[target=torch.ops.aten.full.default](args = ([], 1), kwargs = {dtype: torch.float32, layout: torch.strided, device: cuda:0, pin_memory: False})
#   return %full_default
triton_poi_fused_new_ones_0 = async_compile.triton('triton_poi_fused_new_ones_0', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 1}, 
    filename=__file__,
    triton_meta={'signature': {'out_ptr0': '*fp32', 'xnumel': 'constexpr', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {'xnumel': 1}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_new_ones_0', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 0, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_new_ones_0(out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 1
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    tmp0 = tl.full([1], 1.0, tl.float32)
    tl.store(out_ptr0 + (tl.full([XBLOCK], 0, tl.int32)), tmp0, None)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/7b/c7bgjd7ohi2xljghxerloyzkwn4xh3m65umjybt7k7twa5eghrnc.py
# Topologically Sorted Source Nodes: [view_9, abs_7, amax_8], Original ATen: [aten.view, aten.abs, aten.amax]
# Source node to ATen node mapping:
#   abs_7 => abs_7
#   amax_8 => amax_8
#   view_9 => view_9
# Graph fragment:
#   %tangents_1 : Tensor "bf16[2, 128, 256][32768, 256, 1]cuda:0" = PlaceHolder[target=tangents_1]
#   %view_9 : Tensor "bf16[256, 256][256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reshape.default](args = (%tangents_1, [-1, 256]), kwargs = {})
#   %abs_7 : Tensor "bf16[256, 256][256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.abs.default](args = (%view_9,), kwargs = {})
#   %amax_8 : Tensor "bf16[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.amax.default](args = (%abs_7, [0], True), kwargs = {})
#   return %buf13
triton_red_fused_abs_amax_view_1 = async_compile.triton('triton_red_fused_abs_amax_view_1', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.reduction(
    size_hints={'x': 512, 'r0_': 128},
    reduction_hint=ReductionHint.OUTER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*bf16', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_red_fused_abs_amax_view_1', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 135168, 'r0_': 0}}
)
@triton.jit
def triton_red_fused_abs_amax_view_1(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    xnumel = 512
    r0_numel = 128
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    rbase = r0_base
    x0 = (xindex % 256)
    x1 = xindex // 256
    _tmp3 = tl.full([XBLOCK, R0_BLOCK], float("-inf"), tl.float32)
    x3 = xindex
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_2 = r0_index
        tmp0 = tl.load(in_ptr0 + (x0 + 256*r0_2 + 32768*x1), r0_mask & xmask, eviction_policy='evict_first', other=0.0).to(tl.float32)
        tmp1 = tl_math.abs(tmp0)
        tmp2 = tl.broadcast_to(tmp1, [XBLOCK, R0_BLOCK])
        tmp4 = tl.where((_tmp3 > tmp2) | (_tmp3 != _tmp3), _tmp3, tmp2)
        _tmp3 = tl.where(r0_mask & xmask, tmp4, _tmp3)
    tmp3 = triton_helpers.max2(_tmp3, 1)[:, None]
    tl.store(out_ptr0 + (x3), tmp3, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/lx/clxfaxk257rce5mkdwqarq6ckb6rouufp72omwu5hljcpsbv2xo4.py
# Topologically Sorted Source Nodes: [view_9, abs_7, amax_8], Original ATen: [aten.view, aten.abs, aten.amax]
# Source node to ATen node mapping:
#   abs_7 => abs_7
#   amax_8 => amax_8
#   view_9 => view_9
# Graph fragment:
#   %buf13 : Tensor "f32[1, 256, 2][512, 1, 256]cuda:0" = PlaceHolder[target=buf13]
#   %view_9 : Tensor "bf16[256, 256][256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reshape.default](args = (%tangents_1, [-1, 256]), kwargs = {})
#   %abs_7 : Tensor "bf16[256, 256][256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.abs.default](args = (%view_9,), kwargs = {})
#   %amax_8 : Tensor "bf16[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.amax.default](args = (%abs_7, [0], True), kwargs = {})
#   return %amax_8
triton_per_fused_abs_amax_view_2 = async_compile.triton('triton_per_fused_abs_amax_view_2', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 256, 'r0_': 2},
    reduction_hint=ReductionHint.OUTER_TINY,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*bf16', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused_abs_amax_view_2', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 3072, 'r0_': 0}}
)
@triton.jit
def triton_per_fused_abs_amax_view_2(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 256
    r0_numel = 2
    R0_BLOCK: tl.constexpr = 2
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_1 = r0_index
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 256*r0_1), xmask, other=0.0)
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.where(xmask, tmp1, float("-inf"))
    tmp4 = triton_helpers.max2(tmp3, 1)[:, None].to(tl.float32)
    tl.store(out_ptr0 + (x0), tmp4, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/n6/cn6w6pis75nhm2o7rs3qshudgnkdpjtnoxyu3sl5j472yqpq2ld5.py
# Topologically Sorted Source Nodes: [amax_11], Original ATen: [aten.amax]
# Source node to ATen node mapping:
#   amax_11 => amax_11
# Graph fragment:
#   %abs_4 : Tensor "bf16[256, 768][1, 256]cuda:0" = PlaceHolder[target=abs_4]
#   %amax_11 : Tensor "bf16[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.amax.default](args = (%abs_4, [-1], True), kwargs = {})
#   return %buf23
triton_red_fused_amax_3 = async_compile.triton('triton_red_fused_amax_3', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.reduction(
    size_hints={'x': 2048, 'r0_': 128},
    reduction_hint=ReductionHint.OUTER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*bf16', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_red_fused_amax_3', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 405504, 'r0_': 0}}
)
@triton.jit
def triton_red_fused_amax_3(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    xnumel = 1536
    r0_numel = 128
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    rbase = r0_base
    x0 = (xindex % 256)
    x1 = xindex // 256
    _tmp2 = tl.full([XBLOCK, R0_BLOCK], float("-inf"), tl.float32)
    x3 = xindex
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_2 = r0_index
        tmp0 = tl.load(in_ptr0 + (x0 + 256*r0_2 + 32768*x1), r0_mask & xmask, eviction_policy='evict_first', other=0.0).to(tl.float32)
        tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
        tmp3 = tl.where((_tmp2 > tmp1) | (_tmp2 != _tmp2), _tmp2, tmp1)
        _tmp2 = tl.where(r0_mask & xmask, tmp3, _tmp2)
    tmp2 = triton_helpers.max2(_tmp2, 1)[:, None]
    tl.store(out_ptr0 + (x3), tmp2, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/x5/cx54pqvam4l7yuddkltf72usabpqrhc3k4zgwcg2pdfj4rt47t6q.py
# Topologically Sorted Source Nodes: [amax_11], Original ATen: [aten.amax]
# Source node to ATen node mapping:
#   amax_11 => amax_11
# Graph fragment:
#   %buf23 : Tensor "f32[256, 1, 6][1, 1536, 256]cuda:0" = PlaceHolder[target=buf23]
#   %amax_11 : Tensor "bf16[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.amax.default](args = (%abs_4, [-1], True), kwargs = {})
#   return %amax_11
triton_per_fused_amax_4 = async_compile.triton('triton_per_fused_amax_4', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 256, 'r0_': 8},
    reduction_hint=ReductionHint.OUTER_TINY,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*bf16', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused_amax_4', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 7168, 'r0_': 0}}
)
@triton.jit
def triton_per_fused_amax_4(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 256
    r0_numel = 6
    R0_BLOCK: tl.constexpr = 8
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = r0_index < r0_numel
    roffset = r0_offset
    rindex = r0_index
    r0_1 = r0_index
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 256*r0_1), r0_mask & xmask, other=0.0)
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.where(r0_mask & xmask, tmp1, float("-inf"))
    tmp4 = triton_helpers.max2(tmp3, 1)[:, None].to(tl.float32)
    tl.store(out_ptr0 + (x0), tmp4, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/ny/cny4wppcouzvu5bcmulkca2u6ersjljx3zgvcutyhuxe2mdrowkh.py
# Topologically Sorted Source Nodes: [amax_7], Original ATen: [aten.amax]
# Source node to ATen node mapping:
#   amax_7 => amax_7
# Graph fragment:
#   %abs_6 : Tensor "bf16[768, 256][1, 768]cuda:0" = PlaceHolder[target=abs_6]
#   %amax_7 : Tensor "bf16[768, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.amax.default](args = (%abs_6, [-1], True), kwargs = {})
#   return %buf1
triton_red_fused_amax_5 = async_compile.triton('triton_red_fused_amax_5', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.reduction(
    size_hints={'x': 2048, 'r0_': 128},
    reduction_hint=ReductionHint.OUTER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*bf16', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_red_fused_amax_5', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 405504, 'r0_': 0}}
)
@triton.jit
def triton_red_fused_amax_5(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    xnumel = 1536
    r0_numel = 128
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    rbase = r0_base
    x0 = (xindex % 768)
    x1 = xindex // 768
    _tmp2 = tl.full([XBLOCK, R0_BLOCK], float("-inf"), tl.float32)
    x3 = xindex
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_2 = r0_index
        tmp0 = tl.load(in_ptr0 + (x0 + 768*r0_2 + 98304*x1), r0_mask & xmask, eviction_policy='evict_first', other=0.0).to(tl.float32)
        tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
        tmp3 = tl.where((_tmp2 > tmp1) | (_tmp2 != _tmp2), _tmp2, tmp1)
        _tmp2 = tl.where(r0_mask & xmask, tmp3, _tmp2)
    tmp2 = triton_helpers.max2(_tmp2, 1)[:, None]
    tl.store(out_ptr0 + (x3), tmp2, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/op/copab54kblghcjyy6jaacmid7tsfuhklcb6xy6gr4szhv5kb67yk.py
# Topologically Sorted Source Nodes: [amax_7], Original ATen: [aten.amax]
# Source node to ATen node mapping:
#   amax_7 => amax_7
# Graph fragment:
#   %buf1 : Tensor "f32[768, 1, 2][1, 1536, 768]cuda:0" = PlaceHolder[target=buf1]
#   %amax_7 : Tensor "bf16[768, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.amax.default](args = (%abs_6, [-1], True), kwargs = {})
#   return %amax_7
triton_per_fused_amax_6 = async_compile.triton('triton_per_fused_amax_6', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 1024, 'r0_': 2},
    reduction_hint=ReductionHint.OUTER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*bf16', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused_amax_6', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 9216, 'r0_': 0}}
)
@triton.jit
def triton_per_fused_amax_6(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 768
    r0_numel = 2
    R0_BLOCK: tl.constexpr = 2
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_1 = r0_index
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 768*r0_1), xmask, other=0.0)
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.where(xmask, tmp1, float("-inf"))
    tmp4 = triton_helpers.max2(tmp3, 1)[:, None].to(tl.float32)
    tl.store(out_ptr0 + (x0), tmp4, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/h7/ch7in4as2xdpfokqdeefd5h5gb6aytkpwjgqxqbmqvga2ch3pa22.py
# Topologically Sorted Source Nodes: [view_9, abs_7, amax_6, convert_element_type_26, clamp_min_12, reciprocal_12, mul_13, convert_element_type_27, log2_6, floor_6, exp2_6, convert_element_type_28, mul_14, clamp_min_13, clamp_max_6, convert_element_type_29, convert_element_type_30, clamp_min_14, reciprocal_13, mul_15, convert_element_type_31, log2_7, floor_7, exp2_7, t_2, output_2, mul_16, clamp_min_15, clamp_max_7, convert_element_type_33, clone, permute_6, full_default, _scaled_mm_3, output, silu, output_1, mul, view_11, convert_element_type_35, clamp_min_16, reciprocal_16, mul_19, convert_element_type_36, log2_8, floor_8, exp2_8, mul_20, clamp_min_17, clamp_max_8, convert_element_type_38, convert_element_type_39, clamp_min_18, reciprocal_17, mul_21, convert_element_type_40, log2_9, floor_9, exp2_9, convert_element_type_41, mul_22, clamp_min_19, clamp_max_9, convert_element_type_42, permute_7, clone_1, permute_9, clone_2, permute_10, _scaled_mm_4], Original ATen: [aten.view, aten.abs, aten.amax, aten._to_copy, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.t, aten.clone, aten.new_ones, aten._scaled_mm, aten.silu]
# Source node to ATen node mapping:
#   _scaled_mm_3 => _scaled_mm_3
#   _scaled_mm_4 => _scaled_mm_4
#   abs_7 => abs_7
#   amax_6 => amax_6
#   clamp_max_6 => clamp_max_6
#   clamp_max_7 => clamp_max_7
#   clamp_max_8 => clamp_max_8
#   clamp_max_9 => clamp_max_9
#   clamp_min_12 => clamp_min_12
#   clamp_min_13 => clamp_min_13
#   clamp_min_14 => clamp_min_14
#   clamp_min_15 => clamp_min_15
#   clamp_min_16 => clamp_min_16
#   clamp_min_17 => clamp_min_17
#   clamp_min_18 => clamp_min_18
#   clamp_min_19 => clamp_min_19
#   clone => clone
#   clone_1 => clone_1
#   clone_2 => clone_2
#   convert_element_type_26 => convert_element_type_26
#   convert_element_type_27 => convert_element_type_27
#   convert_element_type_28 => convert_element_type_28
#   convert_element_type_29 => convert_element_type_29
#   convert_element_type_30 => convert_element_type_30
#   convert_element_type_31 => convert_element_type_31
#   convert_element_type_33 => convert_element_type_33
#   convert_element_type_35 => convert_element_type_35
#   convert_element_type_36 => convert_element_type_36
#   convert_element_type_38 => convert_element_type_38
#   convert_element_type_39 => convert_element_type_39
#   convert_element_type_40 => convert_element_type_40
#   convert_element_type_41 => convert_element_type_41
#   convert_element_type_42 => convert_element_type_42
#   exp2_6 => exp2_6
#   exp2_7 => exp2_7
#   exp2_8 => exp2_8
#   exp2_9 => exp2_9
#   floor_6 => floor_6
#   floor_7 => floor_7
#   floor_8 => floor_8
#   floor_9 => floor_9
#   full_default => full_default
#   log2_6 => log2_6
#   log2_7 => log2_7
#   log2_8 => log2_8
#   log2_9 => log2_9
#   mul => mul_8
#   mul_13 => mul_13
#   mul_14 => mul_14
#   mul_15 => mul_15
#   mul_16 => mul_16
#   mul_19 => mul_19
#   mul_20 => mul_20
#   mul_21 => mul_21
#   mul_22 => mul_22
#   output => view_2
#   output_1 => view_5
#   output_2 => convert_element_type_24
#   permute_10 => permute_10
#   permute_6 => permute_6
#   permute_7 => permute_7
#   permute_9 => permute_9
#   reciprocal_12 => reciprocal_12
#   reciprocal_13 => reciprocal_13
#   reciprocal_16 => reciprocal_16
#   reciprocal_17 => reciprocal_17
#   silu => add, convert_element_type_8, convert_element_type_9, div, exp, neg
#   t_2 => permute_2
#   view_11 => view_11
#   view_9 => view_9
# Graph fragment:
#   %tangents_1 : Tensor "bf16[2, 128, 256][32768, 256, 1]cuda:0" = PlaceHolder[target=tangents_1]
#   %amax_6 : Tensor "bf16[256, 1][1, 256]cuda:0" = PlaceHolder[target=amax_6]
#   %amax_8 : Tensor "bf16[1, 256][256, 1]cuda:0" = PlaceHolder[target=amax_8]
#   %view_9 : Tensor "bf16[256, 256][256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reshape.default](args = (%tangents_1, [-1, 256]), kwargs = {})
#   %abs_7 : Tensor "bf16[256, 256][256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.abs.default](args = (%view_9,), kwargs = {})
#   %amax_6 : Tensor "bf16[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.amax.default](args = (%abs_7, [-1], True), kwargs = {})
#   %convert_element_type_26 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_6, torch.float64), kwargs = {})
#   %clamp_min_12 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_26, 1e-12), kwargs = {})
#   %reciprocal_12 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_12,), kwargs = {})
#   %mul_13 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_12, 448.0), kwargs = {})
#   %convert_element_type_27 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_13, torch.float32), kwargs = {})
#   %log2_6 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_27,), kwargs = {})
#   %floor_6 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_6,), kwargs = {})
#   %exp2_6 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_6,), kwargs = {})
#   %convert_element_type_28 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%view_9, torch.float32), kwargs = {})
#   %mul_14 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_28, %exp2_6), kwargs = {})
#   %clamp_min_13 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%mul_14, -448.0), kwargs = {})
#   %clamp_max_6 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_max.default](args = (%clamp_min_13, 448.0), kwargs = {})
#   %convert_element_type_29 : Tensor "f8e4m3fn[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max_6, torch.float8_e4m3fn), kwargs = {})
#   %convert_element_type_30 : Tensor "f64[768, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_7, torch.float64), kwargs = {})
#   %clamp_min_14 : Tensor "f64[768, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_30, 1e-12), kwargs = {})
#   %reciprocal_13 : Tensor "f64[768, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_14,), kwargs = {})
#   %mul_15 : Tensor "f64[768, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_13, 448.0), kwargs = {})
#   %convert_element_type_31 : Tensor "f32[768, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_15, torch.float32), kwargs = {})
#   %log2_7 : Tensor "f32[768, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_31,), kwargs = {})
#   %floor_7 : Tensor "f32[768, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_7,), kwargs = {})
#   %exp2_7 : Tensor "f32[768, 1][1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_7,), kwargs = {})
#   %permute_2 : Tensor "bf16[768, 256][1, 768]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%primals_4, [1, 0]), kwargs = {})
#   %convert_element_type_24 : Tensor "f32[768, 256][1, 768]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%permute_2, torch.float32), kwargs = {})
#   %mul_16 : Tensor "f32[768, 256][1, 768]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_24, %exp2_7), kwargs = {})
#   %clamp_min_15 : Tensor "f32[768, 256][1, 768]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%mul_16, -448.0), kwargs = {})
#   %clamp_max_7 : Tensor "f32[768, 256][1, 768]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_max.default](args = (%clamp_min_15, 448.0), kwargs = {})
#   %convert_element_type_33 : Tensor "f8e4m3fn[768, 256][1, 768]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max_7, torch.float8_e4m3fn), kwargs = {})
#   %clone : Tensor "f8e4m3fn[768, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%convert_element_type_33,), kwargs = {memory_format: torch.contiguous_format})
#   %permute_6 : Tensor "f8e4m3fn[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%clone, [1, 0]), kwargs = {})
#   %full_default : Tensor "f32[][]cuda:0"[num_users=6] = call_function[target=torch.ops.aten.full.default](args = ([], 1), kwargs = {dtype: torch.float32, layout: torch.strided, device: cuda:0, pin_memory: False})
#   %_scaled_mm_3 : Tensor "bf16[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten._scaled_mm.default](args = (%convert_element_type_29, %permute_6, %full_default, %full_default, None, None, torch.bfloat16), kwargs = {})
#   %view_2 : Tensor "bf16[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%_scaled_mm, [2, 128, 768]), kwargs = {})
#   %convert_element_type_8 : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%view_2, torch.float32), kwargs = {})
#   %neg : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.neg.default](args = (%convert_element_type_8,), kwargs = {})
#   %exp : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.exp.default](args = (%neg,), kwargs = {})
#   %add : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.add.Tensor](args = (%exp, 1), kwargs = {})
#   %div : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.div.Tensor](args = (%convert_element_type_8, %add), kwargs = {})
#   %convert_element_type_9 : Tensor "bf16[2, 128, 768][98304, 768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%div, torch.bfloat16), kwargs = {})
#   %view_5 : Tensor "bf16[2, 128, 768][98304, 768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reshape.default](args = (%_scaled_mm_1, [2, 128, 768]), kwargs = {})
#   %mul_8 : Tensor "bf16[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_9, %view_5), kwargs = {})
#   %view_11 : Tensor "bf16[256, 768][768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reshape.default](args = (%mul_8, [-1, 768]), kwargs = {})
#   %convert_element_type_35 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_8, torch.float64), kwargs = {})
#   %clamp_min_16 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_35, 1e-12), kwargs = {})
#   %reciprocal_16 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_16,), kwargs = {})
#   %mul_19 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_16, 448.0), kwargs = {})
#   %convert_element_type_36 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_19, torch.float32), kwargs = {})
#   %log2_8 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_36,), kwargs = {})
#   %floor_8 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_8,), kwargs = {})
#   %exp2_8 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_8,), kwargs = {})
#   %mul_20 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_28, %exp2_8), kwargs = {})
#   %clamp_min_17 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%mul_20, -448.0), kwargs = {})
#   %clamp_max_8 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_max.default](args = (%clamp_min_17, 448.0), kwargs = {})
#   %convert_element_type_38 : Tensor "f8e4m3fn[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max_8, torch.float8_e4m3fn), kwargs = {})
#   %convert_element_type_39 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_9, torch.float64), kwargs = {})
#   %clamp_min_18 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_39, 1e-12), kwargs = {})
#   %reciprocal_17 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_18,), kwargs = {})
#   %mul_21 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_17, 448.0), kwargs = {})
#   %convert_element_type_40 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_21, torch.float32), kwargs = {})
#   %log2_9 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_40,), kwargs = {})
#   %floor_9 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_9,), kwargs = {})
#   %exp2_9 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_9,), kwargs = {})
#   %convert_element_type_41 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%view_11, torch.float32), kwargs = {})
#   %mul_22 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_41, %exp2_9), kwargs = {})
#   %clamp_min_19 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%mul_22, -448.0), kwargs = {})
#   %clamp_max_9 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_max.default](args = (%clamp_min_19, 448.0), kwargs = {})
#   %convert_element_type_42 : Tensor "f8e4m3fn[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max_9, torch.float8_e4m3fn), kwargs = {})
#   %permute_7 : Tensor "f8e4m3fn[256, 256][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%convert_element_type_38, [1, 0]), kwargs = {})
#   %clone_1 : Tensor "f8e4m3fn[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%permute_7,), kwargs = {memory_format: torch.contiguous_format})
#   %permute_9 : Tensor "f8e4m3fn[768, 256][1, 768]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%convert_element_type_42, [1, 0]), kwargs = {})
#   %clone_2 : Tensor "f8e4m3fn[768, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%permute_9,), kwargs = {memory_format: torch.contiguous_format})
#   %permute_10 : Tensor "f8e4m3fn[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%clone_2, [1, 0]), kwargs = {})
#   %_scaled_mm_4 : Tensor "bf16[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten._scaled_mm.default](args = (%clone_1, %permute_10, %full_default, %full_default, None, None, torch.bfloat16), kwargs = {})
#   return %amax_6,%buf3,%buf17
triton_red_fused__scaled_mm__to_copy_abs_amax_clamp_clone_exp2_floor_log2_mul_new_ones_reciprocal_silu_t_view_7 = async_compile.triton('triton_red_fused__scaled_mm__to_copy_abs_amax_clamp_clone_exp2_floor_log2_mul_new_ones_reciprocal_silu_t_view_7', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.reduction(
    size_hints={'x': 256, 'r0_': 256},
    reduction_hint=ReductionHint.DEFAULT,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*bf16', 'in_ptr1': '*bf16', 'out_ptr0': '*bf16', 'out_ptr1': '*fp8e4nv', 'out_ptr2': '*fp8e4nv', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_red_fused__scaled_mm__to_copy_abs_amax_clamp_clone_exp2_floor_log2_mul_new_ones_reciprocal_silu_t_view_7', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 3, 'num_store': 3, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 132096, 'r0_': 262656}}
)
@triton.jit
def triton_red_fused__scaled_mm__to_copy_abs_amax_clamp_clone_exp2_floor_log2_mul_new_ones_reciprocal_silu_t_view_7(in_ptr0, in_ptr1, out_ptr0, out_ptr1, out_ptr2, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    xnumel = 256
    r0_numel = 256
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    rbase = r0_base
    x0 = xindex
    _tmp3 = tl.full([XBLOCK, R0_BLOCK], float("-inf"), tl.float32)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_1 = r0_index
        tmp0 = tl.load(in_ptr0 + (r0_1 + 256*x0), r0_mask & xmask, eviction_policy='evict_last', other=0.0).to(tl.float32)
        tmp1 = tl_math.abs(tmp0)
        tmp2 = tl.broadcast_to(tmp1, [XBLOCK, R0_BLOCK])
        tmp4 = tl.where((_tmp3 > tmp2) | (_tmp3 != _tmp3), _tmp3, tmp2)
        _tmp3 = tl.where(r0_mask & xmask, tmp4, _tmp3)
    tmp3 = triton_helpers.max2(_tmp3, 1)[:, None]
    tl.store(out_ptr0 + (x0), tmp3, xmask)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_1 = r0_index
        tmp5 = tl.load(in_ptr0 + (r0_1 + 256*x0), r0_mask & xmask, eviction_policy='evict_first', other=0.0).to(tl.float32)
        tmp24 = tl.load(in_ptr1 + (r0_1), r0_mask, eviction_policy='evict_last', other=0.0).to(tl.float32)
        tmp6 = tmp5.to(tl.float32)
        tmp7 = tmp3.to(tl.float64)
        tmp8 = tl.full([1, 1], 1e-12, tl.float64)
        tmp9 = tl.where((tmp7 > tmp8) | (tmp7 != tmp7), tmp7, tmp8)
        tmp10 = tl.full([1, 1], 1, tl.int32)
        tmp11 = (tmp10 / tmp9)
        tmp12 = tl.full([1, 1], 448.0, tl.float64)
        tmp13 = tmp11 * tmp12
        tmp14 = tmp13.to(tl.float32)
        tmp15 = libdevice.log2(tmp14)
        tmp16 = libdevice.floor(tmp15)
        tmp17 = libdevice.exp2(tmp16)
        tmp18 = tmp6 * tmp17
        tmp19 = tl.full([1, 1], -448.0, tl.float32)
        tmp20 = tl.where((tmp18 > tmp19) | (tmp18 != tmp18), tmp18, tmp19)
        tmp21 = tl.full([1, 1], 448.0, tl.float32)
        tmp22 = tl.where((tmp20 < tmp21) | (tmp20 != tmp20), tmp20, tmp21)
        tmp23 = tmp22.to(tl.float8e4nv)
        tmp25 = tmp24.to(tl.float64)
        tmp26 = tl.where((tmp25 > tmp8) | (tmp25 != tmp25), tmp25, tmp8)
        tmp27 = (tmp10 / tmp26)
        tmp28 = tmp27 * tmp12
        tmp29 = tmp28.to(tl.float32)
        tmp30 = libdevice.log2(tmp29)
        tmp31 = libdevice.floor(tmp30)
        tmp32 = libdevice.exp2(tmp31)
        tmp33 = tmp6 * tmp32
        tmp34 = tl.where((tmp33 > tmp19) | (tmp33 != tmp33), tmp33, tmp19)
        tmp35 = tl.where((tmp34 < tmp21) | (tmp34 != tmp34), tmp34, tmp21)
        tmp36 = tmp35.to(tl.float8e4nv)
        tl.store(out_ptr1 + (r0_1 + 256*x0), tmp23, r0_mask & xmask)
        tl.store(out_ptr2 + (x0 + 256*r0_1), tmp36, r0_mask & xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/by/cby7t7ty6a6f7ztx7rdpgt7q5oulqqwulyipkjuckfwsqgiyqets.py
# Topologically Sorted Source Nodes: [view_9, convert_element_type_26, clamp_min_12, reciprocal_12, mul_13, convert_element_type_27, log2_6, floor_6, exp2_6, convert_element_type_28, mul_14, clamp_min_13, clamp_max_6, convert_element_type_29, convert_element_type_30, clamp_min_14, reciprocal_13, mul_15, convert_element_type_31, log2_7, floor_7, exp2_7, t_2, output_2, mul_16, clamp_min_15, clamp_max_7, convert_element_type_33, clone, permute_6, full_default, _scaled_mm_3], Original ATen: [aten.view, aten._to_copy, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.t, aten.clone, aten.new_ones, aten._scaled_mm]
# Source node to ATen node mapping:
#   _scaled_mm_3 => _scaled_mm_3
#   clamp_max_6 => clamp_max_6
#   clamp_max_7 => clamp_max_7
#   clamp_min_12 => clamp_min_12
#   clamp_min_13 => clamp_min_13
#   clamp_min_14 => clamp_min_14
#   clamp_min_15 => clamp_min_15
#   clone => clone
#   convert_element_type_26 => convert_element_type_26
#   convert_element_type_27 => convert_element_type_27
#   convert_element_type_28 => convert_element_type_28
#   convert_element_type_29 => convert_element_type_29
#   convert_element_type_30 => convert_element_type_30
#   convert_element_type_31 => convert_element_type_31
#   convert_element_type_33 => convert_element_type_33
#   exp2_6 => exp2_6
#   exp2_7 => exp2_7
#   floor_6 => floor_6
#   floor_7 => floor_7
#   full_default => full_default
#   log2_6 => log2_6
#   log2_7 => log2_7
#   mul_13 => mul_13
#   mul_14 => mul_14
#   mul_15 => mul_15
#   mul_16 => mul_16
#   output_2 => convert_element_type_24
#   permute_6 => permute_6
#   reciprocal_12 => reciprocal_12
#   reciprocal_13 => reciprocal_13
#   t_2 => permute_2
#   view_9 => view_9
# Graph fragment:
#   %primals_4 : Tensor "bf16[256, 768][768, 1]cuda:0" = PlaceHolder[target=primals_4]
#   %amax_7 : Tensor "bf16[768, 1][1, 768]cuda:0" = PlaceHolder[target=amax_7]
#   %view_9 : Tensor "bf16[256, 256][256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reshape.default](args = (%tangents_1, [-1, 256]), kwargs = {})
#   %convert_element_type_26 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_6, torch.float64), kwargs = {})
#   %clamp_min_12 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_26, 1e-12), kwargs = {})
#   %reciprocal_12 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_12,), kwargs = {})
#   %mul_13 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_12, 448.0), kwargs = {})
#   %convert_element_type_27 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_13, torch.float32), kwargs = {})
#   %log2_6 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_27,), kwargs = {})
#   %floor_6 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_6,), kwargs = {})
#   %exp2_6 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_6,), kwargs = {})
#   %convert_element_type_28 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%view_9, torch.float32), kwargs = {})
#   %mul_14 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_28, %exp2_6), kwargs = {})
#   %clamp_min_13 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%mul_14, -448.0), kwargs = {})
#   %clamp_max_6 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_max.default](args = (%clamp_min_13, 448.0), kwargs = {})
#   %convert_element_type_29 : Tensor "f8e4m3fn[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max_6, torch.float8_e4m3fn), kwargs = {})
#   %convert_element_type_30 : Tensor "f64[768, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_7, torch.float64), kwargs = {})
#   %clamp_min_14 : Tensor "f64[768, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_30, 1e-12), kwargs = {})
#   %reciprocal_13 : Tensor "f64[768, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_14,), kwargs = {})
#   %mul_15 : Tensor "f64[768, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_13, 448.0), kwargs = {})
#   %convert_element_type_31 : Tensor "f32[768, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_15, torch.float32), kwargs = {})
#   %log2_7 : Tensor "f32[768, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_31,), kwargs = {})
#   %floor_7 : Tensor "f32[768, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_7,), kwargs = {})
#   %exp2_7 : Tensor "f32[768, 1][1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_7,), kwargs = {})
#   %permute_2 : Tensor "bf16[768, 256][1, 768]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%primals_4, [1, 0]), kwargs = {})
#   %convert_element_type_24 : Tensor "f32[768, 256][1, 768]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%permute_2, torch.float32), kwargs = {})
#   %mul_16 : Tensor "f32[768, 256][1, 768]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_24, %exp2_7), kwargs = {})
#   %clamp_min_15 : Tensor "f32[768, 256][1, 768]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%mul_16, -448.0), kwargs = {})
#   %clamp_max_7 : Tensor "f32[768, 256][1, 768]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_max.default](args = (%clamp_min_15, 448.0), kwargs = {})
#   %convert_element_type_33 : Tensor "f8e4m3fn[768, 256][1, 768]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max_7, torch.float8_e4m3fn), kwargs = {})
#   %clone : Tensor "f8e4m3fn[768, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%convert_element_type_33,), kwargs = {memory_format: torch.contiguous_format})
#   %permute_6 : Tensor "f8e4m3fn[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%clone, [1, 0]), kwargs = {})
#   %full_default : Tensor "f32[][]cuda:0"[num_users=6] = call_function[target=torch.ops.aten.full.default](args = ([], 1), kwargs = {dtype: torch.float32, layout: torch.strided, device: cuda:0, pin_memory: False})
#   %_scaled_mm_3 : Tensor "bf16[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten._scaled_mm.default](args = (%convert_element_type_29, %permute_6, %full_default, %full_default, None, None, torch.bfloat16), kwargs = {})
#   return %buf4
triton_poi_fused__scaled_mm__to_copy_clamp_clone_exp2_floor_log2_mul_new_ones_reciprocal_t_view_8 = async_compile.triton('triton_poi_fused__scaled_mm__to_copy_clamp_clone_exp2_floor_log2_mul_new_ones_reciprocal_t_view_8', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'y': 256, 'x': 1024}, tile_hint=TileHint.DEFAULT,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*bf16', 'in_ptr1': '*bf16', 'out_ptr0': '*fp8e4nv', 'ynumel': 'i32', 'xnumel': 'i32', 'YBLOCK': 'constexpr', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid2D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused__scaled_mm__to_copy_clamp_clone_exp2_floor_log2_mul_new_ones_reciprocal_t_view_8', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 2, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'y': 393216, 'x': 394752}},
    min_elem_per_thread=2
)
@triton.jit
def triton_poi_fused__scaled_mm__to_copy_clamp_clone_exp2_floor_log2_mul_new_ones_reciprocal_t_view_8(in_ptr0, in_ptr1, out_ptr0, ynumel, xnumel, YBLOCK : tl.constexpr, XBLOCK : tl.constexpr):
    ynumel = 256
    xnumel = 768
    yoffset = tl.program_id(1) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[:, None]
    ymask = yindex < ynumel
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    x1 = xindex
    y0 = yindex
    tmp0 = tl.load(in_ptr0 + (x1 + 768*y0), xmask & ymask, eviction_policy='evict_last').to(tl.float32)
    tmp2 = tl.load(in_ptr1 + (x1), xmask, eviction_policy='evict_last').to(tl.float32)
    tmp1 = tmp0.to(tl.float32)
    tmp3 = tmp2.to(tl.float64)
    tmp4 = tl.full([1, 1], 1e-12, tl.float64)
    tmp5 = tl.where((tmp3 > tmp4) | (tmp3 != tmp3), tmp3, tmp4)
    tmp6 = tl.full([1, 1], 1, tl.int32)
    tmp7 = (tmp6 / tmp5)
    tmp8 = tl.full([1, 1], 448.0, tl.float64)
    tmp9 = tmp7 * tmp8
    tmp10 = tmp9.to(tl.float32)
    tmp11 = libdevice.log2(tmp10)
    tmp12 = libdevice.floor(tmp11)
    tmp13 = libdevice.exp2(tmp12)
    tmp14 = tmp1 * tmp13
    tmp15 = tl.full([1, 1], -448.0, tl.float32)
    tmp16 = tl.where((tmp14 > tmp15) | (tmp14 != tmp14), tmp14, tmp15)
    tmp17 = tl.full([1, 1], 448.0, tl.float32)
    tmp18 = tl.where((tmp16 < tmp17) | (tmp16 != tmp16), tmp16, tmp17)
    tmp19 = tmp18.to(tl.float8e4nv)
    tl.store(out_ptr0 + (y0 + 256*x1), tmp19, xmask & ymask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/op/coplecy75nzthdrbsbnflyt5v74napxfkc2aj637erbrmdssdwnc.py
# Topologically Sorted Source Nodes: [output, t_1, output_1, view_13, convert_element_type_46, view_15, convert_element_type_53, clamp_min_24, reciprocal_24, mul_33, convert_element_type_54, log2_12, floor_12, exp2_12, mul_34, clamp_min_25, clamp_max_12, convert_element_type_56, convert_element_type_57, clamp_min_26, reciprocal_25, mul_35, convert_element_type_58, log2_13, floor_13, exp2_13, convert_element_type_59, mul_36, clamp_min_27, clamp_max_13, convert_element_type_60, permute_18, clone_4, permute_20, clone_5, permute_21, _scaled_mm_6, convert_element_type_77, permute_29, clone_7, _scaled_mm_8], Original ATen: [aten.amax, aten._to_copy, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.view, aten.t, aten._scaled_mm, aten.clone]
# Source node to ATen node mapping:
#   _scaled_mm_6 => _scaled_mm_6
#   _scaled_mm_8 => _scaled_mm_8
#   clamp_max_12 => clamp_max_12
#   clamp_max_13 => clamp_max_13
#   clamp_min_24 => clamp_min_24
#   clamp_min_25 => clamp_min_25
#   clamp_min_26 => clamp_min_26
#   clamp_min_27 => clamp_min_27
#   clone_4 => clone_4
#   clone_5 => clone_5
#   clone_7 => clone_7
#   convert_element_type_46 => convert_element_type_46
#   convert_element_type_53 => convert_element_type_53
#   convert_element_type_54 => convert_element_type_54
#   convert_element_type_56 => convert_element_type_56
#   convert_element_type_57 => convert_element_type_57
#   convert_element_type_58 => convert_element_type_58
#   convert_element_type_59 => convert_element_type_59
#   convert_element_type_60 => convert_element_type_60
#   convert_element_type_77 => convert_element_type_77
#   exp2_12 => exp2_12
#   exp2_13 => exp2_13
#   floor_12 => floor_12
#   floor_13 => floor_13
#   log2_12 => log2_12
#   log2_13 => log2_13
#   mul_33 => mul_33
#   mul_34 => mul_34
#   mul_35 => mul_35
#   mul_36 => mul_36
#   output => amax, clamp_max, clamp_min, clamp_min_1, convert_element_type, convert_element_type_1, convert_element_type_2, convert_element_type_3, exp2, floor, log2, mul, mul_1, reciprocal, view
#   output_1 => _scaled_mm_1, clamp_max_3, clamp_min_6, clamp_min_7, convert_element_type_14, convert_element_type_15, convert_element_type_16, convert_element_type_17, exp2_3, floor_3, log2_3, mul_6, mul_7, reciprocal_5, reciprocal_7
#   permute_18 => permute_18
#   permute_20 => permute_20
#   permute_21 => permute_21
#   permute_29 => permute_29
#   reciprocal_24 => reciprocal_24
#   reciprocal_25 => reciprocal_25
#   t_1 => permute_1
#   view_13 => view_13
#   view_15 => view_15
# Graph fragment:
#   %abs_1 : Tensor "bf16[2, 128, 256][32768, 256, 1]cuda:0" = PlaceHolder[target=abs_1]
#   %primals_1 : Tensor "bf16[2, 128, 256][32768, 256, 1]cuda:0" = PlaceHolder[target=primals_1]
#   %amax : Tensor "bf16[2, 128, 1][128, 1, 256]cuda:0" = PlaceHolder[target=amax]
#   %amax_13 : Tensor "bf16[1, 256][256, 1]cuda:0" = PlaceHolder[target=amax_13]
#   %amax : Tensor "bf16[2, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.amax.default](args = (%abs_1, [-1], True), kwargs = {})
#   %convert_element_type : Tensor "f64[2, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax, torch.float64), kwargs = {})
#   %clamp_min : Tensor "f64[2, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type, 1e-12), kwargs = {})
#   %reciprocal : Tensor "f64[2, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min,), kwargs = {})
#   %mul : Tensor "f64[2, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal, 448.0), kwargs = {})
#   %convert_element_type_1 : Tensor "f32[2, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul, torch.float32), kwargs = {})
#   %log2 : Tensor "f32[2, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_1,), kwargs = {})
#   %floor : Tensor "f32[2, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2,), kwargs = {})
#   %exp2 : Tensor "f32[2, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.exp2.default](args = (%floor,), kwargs = {})
#   %convert_element_type_2 : Tensor "f32[2, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%primals_1, torch.float32), kwargs = {})
#   %mul_1 : Tensor "f32[2, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_2, %exp2), kwargs = {})
#   %clamp_min_1 : Tensor "f32[2, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%mul_1, -448.0), kwargs = {})
#   %clamp_max : Tensor "f32[2, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_max.default](args = (%clamp_min_1, 448.0), kwargs = {})
#   %convert_element_type_3 : Tensor "f8e4m3fn[2, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max, torch.float8_e4m3fn), kwargs = {})
#   %view : Tensor "f8e4m3fn[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%convert_element_type_3, [-1, 256]), kwargs = {})
#   %permute_1 : Tensor "bf16[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%primals_3, [1, 0]), kwargs = {})
#   %convert_element_type_14 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_3, torch.float64), kwargs = {})
#   %clamp_min_6 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_14, 1e-12), kwargs = {})
#   %reciprocal_5 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_6,), kwargs = {})
#   %mul_6 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_5, 448.0), kwargs = {})
#   %convert_element_type_15 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_6, torch.float32), kwargs = {})
#   %log2_3 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_15,), kwargs = {})
#   %floor_3 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_3,), kwargs = {})
#   %exp2_3 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_3,), kwargs = {})
#   %convert_element_type_16 : Tensor "f32[256, 768][1, 256]cuda:0"[num_users=2] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%permute_1, torch.float32), kwargs = {})
#   %mul_7 : Tensor "f32[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_16, %exp2_3), kwargs = {})
#   %clamp_min_7 : Tensor "f32[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%mul_7, -448.0), kwargs = {})
#   %clamp_max_3 : Tensor "f32[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_max.default](args = (%clamp_min_7, 448.0), kwargs = {})
#   %convert_element_type_17 : Tensor "f8e4m3fn[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max_3, torch.float8_e4m3fn), kwargs = {})
#   %reciprocal_7 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%exp2_3,), kwargs = {})
#   %_scaled_mm_1 : Tensor "bf16[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten._scaled_mm.default](args = (%view, %convert_element_type_17, %reciprocal_2, %reciprocal_7, None, None, torch.bfloat16, True), kwargs = {})
#   %view_13 : Tensor "bf16[256, 768][768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reshape.default](args = (%mul_25, [-1, 768]), kwargs = {})
#   %convert_element_type_46 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%view_13, torch.float32), kwargs = {})
#   %view_15 : Tensor "bf16[256, 256][256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reshape.default](args = (%primals_1, [-1, 256]), kwargs = {})
#   %convert_element_type_53 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_12, torch.float64), kwargs = {})
#   %clamp_min_24 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_53, 1e-12), kwargs = {})
#   %reciprocal_24 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_24,), kwargs = {})
#   %mul_33 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_24, 448.0), kwargs = {})
#   %convert_element_type_54 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_33, torch.float32), kwargs = {})
#   %log2_12 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_54,), kwargs = {})
#   %floor_12 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_12,), kwargs = {})
#   %exp2_12 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_12,), kwargs = {})
#   %mul_34 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_46, %exp2_12), kwargs = {})
#   %clamp_min_25 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%mul_34, -448.0), kwargs = {})
#   %clamp_max_12 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_max.default](args = (%clamp_min_25, 448.0), kwargs = {})
#   %convert_element_type_56 : Tensor "f8e4m3fn[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max_12, torch.float8_e4m3fn), kwargs = {})
#   %convert_element_type_57 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_13, torch.float64), kwargs = {})
#   %clamp_min_26 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_57, 1e-12), kwargs = {})
#   %reciprocal_25 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_26,), kwargs = {})
#   %mul_35 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_25, 448.0), kwargs = {})
#   %convert_element_type_58 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_35, torch.float32), kwargs = {})
#   %log2_13 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_58,), kwargs = {})
#   %floor_13 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_13,), kwargs = {})
#   %exp2_13 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_13,), kwargs = {})
#   %convert_element_type_59 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%view_15, torch.float32), kwargs = {})
#   %mul_36 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_59, %exp2_13), kwargs = {})
#   %clamp_min_27 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%mul_36, -448.0), kwargs = {})
#   %clamp_max_13 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_max.default](args = (%clamp_min_27, 448.0), kwargs = {})
#   %convert_element_type_60 : Tensor "f8e4m3fn[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max_13, torch.float8_e4m3fn), kwargs = {})
#   %permute_18 : Tensor "f8e4m3fn[768, 256][1, 768]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%convert_element_type_56, [1, 0]), kwargs = {})
#   %clone_4 : Tensor "f8e4m3fn[768, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%permute_18,), kwargs = {memory_format: torch.contiguous_format})
#   %permute_20 : Tensor "f8e4m3fn[256, 256][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%convert_element_type_60, [1, 0]), kwargs = {})
#   %clone_5 : Tensor "f8e4m3fn[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%permute_20,), kwargs = {memory_format: torch.contiguous_format})
#   %permute_21 : Tensor "f8e4m3fn[256, 256][1, 256]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.permute.default](args = (%clone_5, [1, 0]), kwargs = {})
#   %_scaled_mm_6 : Tensor "bf16[768, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten._scaled_mm.default](args = (%clone_4, %permute_21, %full_default, %full_default, None, None, torch.bfloat16), kwargs = {})
#   %convert_element_type_77 : Tensor "f8e4m3fn[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max_16, torch.float8_e4m3fn), kwargs = {})
#   %permute_29 : Tensor "f8e4m3fn[768, 256][1, 768]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%convert_element_type_77, [1, 0]), kwargs = {})
#   %clone_7 : Tensor "f8e4m3fn[768, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%permute_29,), kwargs = {memory_format: torch.contiguous_format})
#   %_scaled_mm_8 : Tensor "bf16[768, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten._scaled_mm.default](args = (%clone_7, %permute_21, %full_default, %full_default, None, None, torch.bfloat16), kwargs = {})
#   return %amax,%buf9,%buf33,%buf48
triton_red_fused__scaled_mm__to_copy_amax_clamp_clone_exp2_floor_log2_mul_reciprocal_t_view_9 = async_compile.triton('triton_red_fused__scaled_mm__to_copy_amax_clamp_clone_exp2_floor_log2_mul_reciprocal_t_view_9', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.reduction(
    size_hints={'x': 256, 'r0_': 256},
    reduction_hint=ReductionHint.DEFAULT,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*bf16', 'in_ptr1': '*bf16', 'in_ptr2': '*bf16', 'out_ptr1': '*fp8e4nv', 'out_ptr2': '*fp8e4nv', 'out_ptr3': '*fp8e4nv', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_red_fused__scaled_mm__to_copy_amax_clamp_clone_exp2_floor_log2_mul_reciprocal_t_view_9', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 3, 'num_store': 3, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 262144, 'r0_': 393728}}
)
@triton.jit
def triton_red_fused__scaled_mm__to_copy_amax_clamp_clone_exp2_floor_log2_mul_reciprocal_t_view_9(in_ptr0, in_ptr1, in_ptr2, out_ptr1, out_ptr2, out_ptr3, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    xnumel = 256
    r0_numel = 256
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    rbase = r0_base
    x0 = xindex
    _tmp2 = tl.full([XBLOCK, R0_BLOCK], float("-inf"), tl.float32)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_1 = r0_index
        tmp0 = tl.load(in_ptr0 + (r0_1 + 256*x0), r0_mask & xmask, eviction_policy='evict_first', other=0.0).to(tl.float32)
        tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
        tmp3 = tl.where((_tmp2 > tmp1) | (_tmp2 != _tmp2), _tmp2, tmp1)
        _tmp2 = tl.where(r0_mask & xmask, tmp3, _tmp2)
    tmp2 = triton_helpers.max2(_tmp2, 1)[:, None]
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_1 = r0_index
        tmp4 = tl.load(in_ptr1 + (r0_1 + 256*x0), r0_mask & xmask, eviction_policy='evict_first', other=0.0).to(tl.float32)
        tmp23 = tl.load(in_ptr2 + (r0_1), r0_mask, eviction_policy='evict_last', other=0.0).to(tl.float32)
        tmp5 = tmp4.to(tl.float32)
        tmp6 = tmp2.to(tl.float64)
        tmp7 = tl.full([1, 1], 1e-12, tl.float64)
        tmp8 = tl.where((tmp6 > tmp7) | (tmp6 != tmp6), tmp6, tmp7)
        tmp9 = tl.full([1, 1], 1, tl.int32)
        tmp10 = (tmp9 / tmp8)
        tmp11 = tl.full([1, 1], 448.0, tl.float64)
        tmp12 = tmp10 * tmp11
        tmp13 = tmp12.to(tl.float32)
        tmp14 = libdevice.log2(tmp13)
        tmp15 = libdevice.floor(tmp14)
        tmp16 = libdevice.exp2(tmp15)
        tmp17 = tmp5 * tmp16
        tmp18 = tl.full([1, 1], -448.0, tl.float32)
        tmp19 = tl.where((tmp17 > tmp18) | (tmp17 != tmp17), tmp17, tmp18)
        tmp20 = tl.full([1, 1], 448.0, tl.float32)
        tmp21 = tl.where((tmp19 < tmp20) | (tmp19 != tmp19), tmp19, tmp20)
        tmp22 = tmp21.to(tl.float8e4nv)
        tmp24 = tmp23.to(tl.float64)
        tmp25 = tl.where((tmp24 > tmp7) | (tmp24 != tmp24), tmp24, tmp7)
        tmp26 = (tmp9 / tmp25)
        tmp27 = tmp26 * tmp11
        tmp28 = tmp27.to(tl.float32)
        tmp29 = libdevice.log2(tmp28)
        tmp30 = libdevice.floor(tmp29)
        tmp31 = libdevice.exp2(tmp30)
        tmp32 = tmp5 * tmp31
        tmp33 = tl.where((tmp32 > tmp18) | (tmp32 != tmp32), tmp32, tmp18)
        tmp34 = tl.where((tmp33 < tmp20) | (tmp33 != tmp33), tmp33, tmp20)
        tmp35 = tmp34.to(tl.float8e4nv)
        tl.store(out_ptr1 + (r0_1 + 256*x0), tmp22, r0_mask & xmask)
        tl.store(out_ptr2 + (x0 + 256*r0_1), tmp35, r0_mask & xmask)
        tl.store(out_ptr3 + (x0 + 256*r0_1), tmp35, r0_mask & xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/77/c7723bcvcfpkf4nlb4jurevvku4jxlilwqwqvgjtmgansaf3ieob.py
# Topologically Sorted Source Nodes: [output, t_1, output_1, view_13, convert_element_type_44, clamp_min_20, reciprocal_20, mul_27, convert_element_type_45, log2_10, floor_10, exp2_10, convert_element_type_46, mul_28, clamp_min_21, clamp_max_10, convert_element_type_47, convert_element_type_48, clamp_min_22, reciprocal_21, mul_29, convert_element_type_49, log2_11, floor_11, exp2_11, mul_30, clamp_min_23, clamp_max_11, convert_element_type_51, clone_3, permute_17, _scaled_mm_5], Original ATen: [aten._to_copy, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.view, aten.t, aten.amax, aten._scaled_mm, aten.clone]
# Source node to ATen node mapping:
#   _scaled_mm_5 => _scaled_mm_5
#   clamp_max_10 => clamp_max_10
#   clamp_max_11 => clamp_max_11
#   clamp_min_20 => clamp_min_20
#   clamp_min_21 => clamp_min_21
#   clamp_min_22 => clamp_min_22
#   clamp_min_23 => clamp_min_23
#   clone_3 => clone_3
#   convert_element_type_44 => convert_element_type_44
#   convert_element_type_45 => convert_element_type_45
#   convert_element_type_46 => convert_element_type_46
#   convert_element_type_47 => convert_element_type_47
#   convert_element_type_48 => convert_element_type_48
#   convert_element_type_49 => convert_element_type_49
#   convert_element_type_51 => convert_element_type_51
#   exp2_10 => exp2_10
#   exp2_11 => exp2_11
#   floor_10 => floor_10
#   floor_11 => floor_11
#   log2_10 => log2_10
#   log2_11 => log2_11
#   mul_27 => mul_27
#   mul_28 => mul_28
#   mul_29 => mul_29
#   mul_30 => mul_30
#   output => clamp_max, clamp_min, clamp_min_1, convert_element_type, convert_element_type_1, convert_element_type_2, convert_element_type_3, exp2, floor, log2, mul, mul_1, reciprocal, view
#   output_1 => _scaled_mm_1, amax_3, clamp_max_3, clamp_min_6, clamp_min_7, convert_element_type_14, convert_element_type_15, convert_element_type_16, convert_element_type_17, exp2_3, floor_3, log2_3, mul_6, mul_7, reciprocal_5, reciprocal_7
#   permute_17 => permute_17
#   reciprocal_20 => reciprocal_20
#   reciprocal_21 => reciprocal_21
#   t_1 => permute_1
#   view_13 => view_13
# Graph fragment:
#   %abs_4 : Tensor "bf16[256, 768][1, 256]cuda:0" = PlaceHolder[target=abs_4]
#   %primals_3 : Tensor "bf16[768, 256][256, 1]cuda:0" = PlaceHolder[target=primals_3]
#   %amax_3 : Tensor "bf16[1, 768][768, 1]cuda:0" = PlaceHolder[target=amax_3]
#   %amax_11 : Tensor "bf16[256, 1][1, 256]cuda:0" = PlaceHolder[target=amax_11]
#   %convert_element_type : Tensor "f64[2, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax, torch.float64), kwargs = {})
#   %clamp_min : Tensor "f64[2, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type, 1e-12), kwargs = {})
#   %reciprocal : Tensor "f64[2, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min,), kwargs = {})
#   %mul : Tensor "f64[2, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal, 448.0), kwargs = {})
#   %convert_element_type_1 : Tensor "f32[2, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul, torch.float32), kwargs = {})
#   %log2 : Tensor "f32[2, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_1,), kwargs = {})
#   %floor : Tensor "f32[2, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2,), kwargs = {})
#   %exp2 : Tensor "f32[2, 128, 1][128, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.exp2.default](args = (%floor,), kwargs = {})
#   %convert_element_type_2 : Tensor "f32[2, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%primals_1, torch.float32), kwargs = {})
#   %mul_1 : Tensor "f32[2, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_2, %exp2), kwargs = {})
#   %clamp_min_1 : Tensor "f32[2, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%mul_1, -448.0), kwargs = {})
#   %clamp_max : Tensor "f32[2, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_max.default](args = (%clamp_min_1, 448.0), kwargs = {})
#   %convert_element_type_3 : Tensor "f8e4m3fn[2, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max, torch.float8_e4m3fn), kwargs = {})
#   %view : Tensor "f8e4m3fn[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%convert_element_type_3, [-1, 256]), kwargs = {})
#   %permute_1 : Tensor "bf16[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%primals_3, [1, 0]), kwargs = {})
#   %amax_3 : Tensor "bf16[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.amax.default](args = (%abs_4, [0], True), kwargs = {})
#   %convert_element_type_14 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_3, torch.float64), kwargs = {})
#   %clamp_min_6 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_14, 1e-12), kwargs = {})
#   %reciprocal_5 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_6,), kwargs = {})
#   %mul_6 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_5, 448.0), kwargs = {})
#   %convert_element_type_15 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_6, torch.float32), kwargs = {})
#   %log2_3 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_15,), kwargs = {})
#   %floor_3 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_3,), kwargs = {})
#   %exp2_3 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_3,), kwargs = {})
#   %convert_element_type_16 : Tensor "f32[256, 768][1, 256]cuda:0"[num_users=2] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%permute_1, torch.float32), kwargs = {})
#   %mul_7 : Tensor "f32[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_16, %exp2_3), kwargs = {})
#   %clamp_min_7 : Tensor "f32[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%mul_7, -448.0), kwargs = {})
#   %clamp_max_3 : Tensor "f32[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_max.default](args = (%clamp_min_7, 448.0), kwargs = {})
#   %convert_element_type_17 : Tensor "f8e4m3fn[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max_3, torch.float8_e4m3fn), kwargs = {})
#   %reciprocal_7 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%exp2_3,), kwargs = {})
#   %_scaled_mm_1 : Tensor "bf16[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten._scaled_mm.default](args = (%view, %convert_element_type_17, %reciprocal_2, %reciprocal_7, None, None, torch.bfloat16, True), kwargs = {})
#   %view_13 : Tensor "bf16[256, 768][768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reshape.default](args = (%mul_25, [-1, 768]), kwargs = {})
#   %convert_element_type_44 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_10, torch.float64), kwargs = {})
#   %clamp_min_20 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_44, 1e-12), kwargs = {})
#   %reciprocal_20 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_20,), kwargs = {})
#   %mul_27 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_20, 448.0), kwargs = {})
#   %convert_element_type_45 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_27, torch.float32), kwargs = {})
#   %log2_10 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_45,), kwargs = {})
#   %floor_10 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_10,), kwargs = {})
#   %exp2_10 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_10,), kwargs = {})
#   %convert_element_type_46 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%view_13, torch.float32), kwargs = {})
#   %mul_28 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_46, %exp2_10), kwargs = {})
#   %clamp_min_21 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%mul_28, -448.0), kwargs = {})
#   %clamp_max_10 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_max.default](args = (%clamp_min_21, 448.0), kwargs = {})
#   %convert_element_type_47 : Tensor "f8e4m3fn[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max_10, torch.float8_e4m3fn), kwargs = {})
#   %convert_element_type_48 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_11, torch.float64), kwargs = {})
#   %clamp_min_22 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_48, 1e-12), kwargs = {})
#   %reciprocal_21 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_22,), kwargs = {})
#   %mul_29 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_21, 448.0), kwargs = {})
#   %convert_element_type_49 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_29, torch.float32), kwargs = {})
#   %log2_11 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_49,), kwargs = {})
#   %floor_11 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_11,), kwargs = {})
#   %exp2_11 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_11,), kwargs = {})
#   %mul_30 : Tensor "f32[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_16, %exp2_11), kwargs = {})
#   %clamp_min_23 : Tensor "f32[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%mul_30, -448.0), kwargs = {})
#   %clamp_max_11 : Tensor "f32[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_max.default](args = (%clamp_min_23, 448.0), kwargs = {})
#   %convert_element_type_51 : Tensor "f8e4m3fn[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max_11, torch.float8_e4m3fn), kwargs = {})
#   %clone_3 : Tensor "f8e4m3fn[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%convert_element_type_51,), kwargs = {memory_format: torch.contiguous_format})
#   %permute_17 : Tensor "f8e4m3fn[768, 256][1, 768]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%clone_3, [1, 0]), kwargs = {})
#   %_scaled_mm_5 : Tensor "bf16[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten._scaled_mm.default](args = (%convert_element_type_47, %permute_17, %full_default, %full_default, None, None, torch.bfloat16), kwargs = {})
#   return %amax_3,%buf10,%buf26,%buf11
triton_red_fused__scaled_mm__to_copy_amax_clamp_clone_exp2_floor_log2_mul_reciprocal_t_view_10 = async_compile.triton('triton_red_fused__scaled_mm__to_copy_amax_clamp_clone_exp2_floor_log2_mul_reciprocal_t_view_10', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.reduction(
    size_hints={'x': 1024, 'r0_': 256},
    reduction_hint=ReductionHint.DEFAULT,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*bf16', 'in_ptr1': '*bf16', 'in_ptr2': '*bf16', 'out_ptr1': '*fp8e4nv', 'out_ptr2': '*fp8e4nv', 'out_ptr3': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_red_fused__scaled_mm__to_copy_amax_clamp_clone_exp2_floor_log2_mul_reciprocal_t_view_10', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 3, 'num_store': 3, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 399360, 'r0_': 1180160}}
)
@triton.jit
def triton_red_fused__scaled_mm__to_copy_amax_clamp_clone_exp2_floor_log2_mul_reciprocal_t_view_10(in_ptr0, in_ptr1, in_ptr2, out_ptr1, out_ptr2, out_ptr3, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    xnumel = 768
    r0_numel = 256
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    rbase = r0_base
    x0 = xindex
    _tmp2 = tl.full([XBLOCK, R0_BLOCK], float("-inf"), tl.float32)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_1 = r0_index
        tmp0 = tl.load(in_ptr0 + (r0_1 + 256*x0), r0_mask & xmask, eviction_policy='evict_first', other=0.0).to(tl.float32)
        tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
        tmp3 = tl.where((_tmp2 > tmp1) | (_tmp2 != _tmp2), _tmp2, tmp1)
        _tmp2 = tl.where(r0_mask & xmask, tmp3, _tmp2)
    tmp2 = triton_helpers.max2(_tmp2, 1)[:, None]
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_1 = r0_index
        tmp4 = tl.load(in_ptr1 + (r0_1 + 256*x0), r0_mask & xmask, eviction_policy='evict_first', other=0.0).to(tl.float32)
        tmp23 = tl.load(in_ptr2 + (r0_1), r0_mask, eviction_policy='evict_last', other=0.0).to(tl.float32)
        tmp5 = tmp4.to(tl.float32)
        tmp6 = tmp2.to(tl.float64)
        tmp7 = tl.full([1, 1], 1e-12, tl.float64)
        tmp8 = tl.where((tmp6 > tmp7) | (tmp6 != tmp6), tmp6, tmp7)
        tmp9 = tl.full([1, 1], 1, tl.int32)
        tmp10 = (tmp9 / tmp8)
        tmp11 = tl.full([1, 1], 448.0, tl.float64)
        tmp12 = tmp10 * tmp11
        tmp13 = tmp12.to(tl.float32)
        tmp14 = libdevice.log2(tmp13)
        tmp15 = libdevice.floor(tmp14)
        tmp16 = libdevice.exp2(tmp15)
        tmp17 = tmp5 * tmp16
        tmp18 = tl.full([1, 1], -448.0, tl.float32)
        tmp19 = tl.where((tmp17 > tmp18) | (tmp17 != tmp17), tmp17, tmp18)
        tmp20 = tl.full([1, 1], 448.0, tl.float32)
        tmp21 = tl.where((tmp19 < tmp20) | (tmp19 != tmp19), tmp19, tmp20)
        tmp22 = tmp21.to(tl.float8e4nv)
        tmp24 = tmp23.to(tl.float64)
        tmp25 = tl.where((tmp24 > tmp7) | (tmp24 != tmp24), tmp24, tmp7)
        tmp26 = (tmp9 / tmp25)
        tmp27 = tmp26 * tmp11
        tmp28 = tmp27.to(tl.float32)
        tmp29 = libdevice.log2(tmp28)
        tmp30 = libdevice.floor(tmp29)
        tmp31 = libdevice.exp2(tmp30)
        tmp32 = tmp5 * tmp31
        tmp33 = tl.where((tmp32 > tmp18) | (tmp32 != tmp32), tmp32, tmp18)
        tmp34 = tl.where((tmp33 < tmp20) | (tmp33 != tmp33), tmp33, tmp20)
        tmp35 = tmp34.to(tl.float8e4nv)
        tl.store(out_ptr1 + (r0_1 + 256*x0), tmp22, r0_mask & xmask)
        tl.store(out_ptr2 + (x0 + 768*r0_1), tmp35, r0_mask & xmask)
    tmp36 = tmp2.to(tl.float64)
    tmp37 = tl.full([1, 1], 1e-12, tl.float64)
    tmp38 = tl.where((tmp36 > tmp37) | (tmp36 != tmp36), tmp36, tmp37)
    tmp39 = tl.full([1, 1], 1, tl.int32)
    tmp40 = (tmp39 / tmp38)
    tmp41 = tl.full([1, 1], 448.0, tl.float64)
    tmp42 = tmp40 * tmp41
    tmp43 = tmp42.to(tl.float32)
    tmp44 = libdevice.log2(tmp43)
    tmp45 = libdevice.floor(tmp44)
    tmp46 = libdevice.exp2(tmp45)
    tmp47 = (tmp39 / tmp46)
    tl.store(out_ptr3 + (x0), tmp47, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/z6/cz627nbt54bgbfltzuhwnengdzdb4oqq3k5kon3h6ut4r7xl6vot.py
# Topologically Sorted Source Nodes: [convert_element_type_26, clamp_min_12, reciprocal_12, mul_13, convert_element_type_27, log2_6, floor_6, exp2_6, convert_element_type_30, clamp_min_14, reciprocal_13, mul_15, convert_element_type_31, log2_7, floor_7, exp2_7, permute_4, reciprocal_14, reciprocal_15, mul_17, mul_18, convert_element_type_34, output, silu, output_1, mul, view_11, abs_10, amax_9, view_12, mul_25, mul_26, view_13, abs_11, amax_12, convert_element_type_62, reciprocal_28, mul_39, mul_40, sub, mul_41, add_4, mul_42, convert_element_type_64, view_17, abs_15, amax_16], Original ATen: [aten._to_copy, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.t, aten.view, aten.silu, aten.abs, aten.amax, aten.silu_backward]
# Source node to ATen node mapping:
#   abs_10 => abs_10
#   abs_11 => abs_11
#   abs_15 => abs_15
#   add_4 => add_4
#   amax_12 => amax_12
#   amax_16 => amax_16
#   amax_9 => amax_9
#   clamp_min_12 => clamp_min_12
#   clamp_min_14 => clamp_min_14
#   convert_element_type_26 => convert_element_type_26
#   convert_element_type_27 => convert_element_type_27
#   convert_element_type_30 => convert_element_type_30
#   convert_element_type_31 => convert_element_type_31
#   convert_element_type_34 => convert_element_type_34
#   convert_element_type_62 => convert_element_type_62
#   convert_element_type_64 => convert_element_type_64
#   exp2_6 => exp2_6
#   exp2_7 => exp2_7
#   floor_6 => floor_6
#   floor_7 => floor_7
#   log2_6 => log2_6
#   log2_7 => log2_7
#   mul => mul_8
#   mul_13 => mul_13
#   mul_15 => mul_15
#   mul_17 => mul_17
#   mul_18 => mul_18
#   mul_25 => mul_25
#   mul_26 => mul_26
#   mul_39 => mul_39
#   mul_40 => mul_40
#   mul_41 => mul_41
#   mul_42 => mul_42
#   output => view_2
#   output_1 => view_5
#   permute_4 => permute_4
#   reciprocal_12 => reciprocal_12
#   reciprocal_13 => reciprocal_13
#   reciprocal_14 => reciprocal_14
#   reciprocal_15 => reciprocal_15
#   reciprocal_28 => reciprocal_28
#   silu => add, convert_element_type_8, convert_element_type_9, div, exp, neg
#   sub => sub
#   view_11 => view_11
#   view_12 => view_12
#   view_13 => view_13
#   view_17 => view_17
# Graph fragment:
#   %_scaled_mm_3 : Tensor "bf16[256, 768][768, 1]cuda:0" = PlaceHolder[target=_scaled_mm_3]
#   %amax_6 : Tensor "bf16[256, 1][1, 256]cuda:0" = PlaceHolder[target=amax_6]
#   %amax_7 : Tensor "bf16[768, 1][1, 768]cuda:0" = PlaceHolder[target=amax_7]
#   %_scaled_mm : Tensor "bf16[256, 768][768, 1]cuda:0" = PlaceHolder[target=_scaled_mm]
#   %_scaled_mm_1 : Tensor "bf16[256, 768][768, 1]cuda:0" = PlaceHolder[target=_scaled_mm_1]
#   %mul_40 : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0" = PlaceHolder[target=mul_40]
#   %mul_25 : Tensor "bf16[2, 128, 768][98304, 768, 1]cuda:0" = PlaceHolder[target=mul_25]
#   %convert_element_type_26 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_6, torch.float64), kwargs = {})
#   %clamp_min_12 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_26, 1e-12), kwargs = {})
#   %reciprocal_12 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_12,), kwargs = {})
#   %mul_13 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_12, 448.0), kwargs = {})
#   %convert_element_type_27 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_13, torch.float32), kwargs = {})
#   %log2_6 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_27,), kwargs = {})
#   %floor_6 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_6,), kwargs = {})
#   %exp2_6 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_6,), kwargs = {})
#   %convert_element_type_30 : Tensor "f64[768, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_7, torch.float64), kwargs = {})
#   %clamp_min_14 : Tensor "f64[768, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_30, 1e-12), kwargs = {})
#   %reciprocal_13 : Tensor "f64[768, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_14,), kwargs = {})
#   %mul_15 : Tensor "f64[768, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_13, 448.0), kwargs = {})
#   %convert_element_type_31 : Tensor "f32[768, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_15, torch.float32), kwargs = {})
#   %log2_7 : Tensor "f32[768, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_31,), kwargs = {})
#   %floor_7 : Tensor "f32[768, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_7,), kwargs = {})
#   %exp2_7 : Tensor "f32[768, 1][1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_7,), kwargs = {})
#   %permute_4 : Tensor "f32[1, 768][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%exp2_7, [1, 0]), kwargs = {})
#   %reciprocal_14 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%exp2_6,), kwargs = {})
#   %reciprocal_15 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%permute_4,), kwargs = {})
#   %mul_17 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_14, %reciprocal_15), kwargs = {})
#   %mul_18 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%_scaled_mm_3, %mul_17), kwargs = {})
#   %convert_element_type_34 : Tensor "bf16[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_18, torch.bfloat16), kwargs = {})
#   %view_2 : Tensor "bf16[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%_scaled_mm, [2, 128, 768]), kwargs = {})
#   %convert_element_type_8 : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%view_2, torch.float32), kwargs = {})
#   %neg : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.neg.default](args = (%convert_element_type_8,), kwargs = {})
#   %exp : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.exp.default](args = (%neg,), kwargs = {})
#   %add : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.add.Tensor](args = (%exp, 1), kwargs = {})
#   %div : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.div.Tensor](args = (%convert_element_type_8, %add), kwargs = {})
#   %convert_element_type_9 : Tensor "bf16[2, 128, 768][98304, 768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%div, torch.bfloat16), kwargs = {})
#   %view_5 : Tensor "bf16[2, 128, 768][98304, 768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reshape.default](args = (%_scaled_mm_1, [2, 128, 768]), kwargs = {})
#   %mul_8 : Tensor "bf16[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_9, %view_5), kwargs = {})
#   %view_11 : Tensor "bf16[256, 768][768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reshape.default](args = (%mul_8, [-1, 768]), kwargs = {})
#   %abs_10 : Tensor "bf16[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.abs.default](args = (%view_11,), kwargs = {})
#   %amax_9 : Tensor "bf16[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.amax.default](args = (%abs_10, [0], True), kwargs = {})
#   %view_12 : Tensor "bf16[2, 128, 768][98304, 768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reshape.default](args = (%convert_element_type_34, [2, 128, 768]), kwargs = {})
#   %mul_25 : Tensor "bf16[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%view_12, %convert_element_type_9), kwargs = {})
#   %mul_26 : Tensor "bf16[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%view_12, %view_5), kwargs = {})
#   %view_13 : Tensor "bf16[256, 768][768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reshape.default](args = (%mul_25, [-1, 768]), kwargs = {})
#   %abs_11 : Tensor "bf16[256, 768][768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.abs.default](args = (%view_13,), kwargs = {})
#   %amax_12 : Tensor "bf16[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.amax.default](args = (%abs_11, [0], True), kwargs = {})
#   %convert_element_type_62 : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_26, torch.float32), kwargs = {})
#   %reciprocal_28 : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%add,), kwargs = {})
#   %mul_39 : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_28, 1), kwargs = {})
#   %mul_40 : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_62, %mul_39), kwargs = {})
#   %sub : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (1, %mul_39), kwargs = {})
#   %mul_41 : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_8, %sub), kwargs = {})
#   %add_4 : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mul_41, 1), kwargs = {})
#   %mul_42 : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_40, %add_4), kwargs = {})
#   %convert_element_type_64 : Tensor "bf16[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_42, torch.bfloat16), kwargs = {})
#   %view_17 : Tensor "bf16[256, 768][768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reshape.default](args = (%convert_element_type_64, [-1, 768]), kwargs = {})
#   %abs_15 : Tensor "bf16[256, 768][768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.abs.default](args = (%view_17,), kwargs = {})
#   %amax_16 : Tensor "bf16[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.amax.default](args = (%abs_15, [0], True), kwargs = {})
#   return %mul_25,%mul_40,%buf15,%buf44,%buf28
triton_red_fused__to_copy_abs_amax_clamp_exp2_floor_log2_mul_reciprocal_silu_silu_backward_t_view_11 = async_compile.triton('triton_red_fused__to_copy_abs_amax_clamp_exp2_floor_log2_mul_reciprocal_silu_silu_backward_t_view_11', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.reduction(
    size_hints={'x': 2048, 'r0_': 128},
    reduction_hint=ReductionHint.OUTER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*bf16', 'in_ptr1': '*bf16', 'in_ptr2': '*bf16', 'in_ptr3': '*bf16', 'in_ptr4': '*bf16', 'out_ptr0': '*bf16', 'out_ptr1': '*fp32', 'out_ptr2': '*fp32', 'out_ptr3': '*fp32', 'out_ptr4': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]], (8,): [['tt.divisibility', 16]], (9,): [['tt.divisibility', 16]], (10,): [['tt.divisibility', 16]], (11,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_red_fused__to_copy_abs_amax_clamp_exp2_floor_log2_mul_reciprocal_silu_silu_backward_t_view_11', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 5, 'num_store': 5, 'num_reduction': 3, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 3577344, 'r0_': 512}}
)
@triton.jit
def triton_red_fused__to_copy_abs_amax_clamp_exp2_floor_log2_mul_reciprocal_silu_silu_backward_t_view_11(in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, out_ptr0, out_ptr1, out_ptr2, out_ptr3, out_ptr4, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    xnumel = 1536
    r0_numel = 128
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    rbase = r0_base
    x0 = (xindex % 768)
    x1 = xindex // 768
    tmp15 = tl.load(in_ptr2 + (x0), xmask, eviction_policy='evict_last').to(tl.float32)
    _tmp46 = tl.full([XBLOCK, R0_BLOCK], float("-inf"), tl.float32)
    x3 = xindex
    _tmp55 = tl.full([XBLOCK, R0_BLOCK], float("-inf"), tl.float32)
    _tmp59 = tl.full([XBLOCK, R0_BLOCK], float("-inf"), tl.float32)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_2 = r0_index
        tmp0 = tl.load(in_ptr0 + (x0 + 768*r0_2 + 98304*x1), r0_mask & xmask, eviction_policy='evict_first', other=0.0).to(tl.float32)
        tmp2 = tl.load(in_ptr1 + (r0_2 + 128*x1), r0_mask & xmask, eviction_policy='evict_last', other=0.0).to(tl.float32)
        tmp28 = tl.load(in_ptr3 + (x0 + 768*r0_2 + 98304*x1), r0_mask & xmask, eviction_policy='evict_first', other=0.0).to(tl.float32)
        tmp37 = tl.load(in_ptr4 + (x0 + 768*r0_2 + 98304*x1), r0_mask & xmask, eviction_policy='evict_first', other=0.0).to(tl.float32)
        tmp1 = tmp0.to(tl.float32)
        tmp3 = tmp2.to(tl.float64)
        tmp4 = tl.full([1, 1], 1e-12, tl.float64)
        tmp5 = tl.where((tmp3 > tmp4) | (tmp3 != tmp3), tmp3, tmp4)
        tmp6 = tl.full([1, 1], 1, tl.int32)
        tmp7 = (tmp6 / tmp5)
        tmp8 = tl.full([1, 1], 448.0, tl.float64)
        tmp9 = tmp7 * tmp8
        tmp10 = tmp9.to(tl.float32)
        tmp11 = libdevice.log2(tmp10)
        tmp12 = libdevice.floor(tmp11)
        tmp13 = libdevice.exp2(tmp12)
        tmp14 = (tmp6 / tmp13)
        tmp16 = tmp15.to(tl.float64)
        tmp17 = tl.where((tmp16 > tmp4) | (tmp16 != tmp16), tmp16, tmp4)
        tmp18 = (tmp6 / tmp17)
        tmp19 = tmp18 * tmp8
        tmp20 = tmp19.to(tl.float32)
        tmp21 = libdevice.log2(tmp20)
        tmp22 = libdevice.floor(tmp21)
        tmp23 = libdevice.exp2(tmp22)
        tmp24 = (tmp6 / tmp23)
        tmp25 = tmp14 * tmp24
        tmp26 = tmp1 * tmp25
        tmp27 = tmp26.to(tl.float32)
        tmp29 = tmp28.to(tl.float32)
        tmp30 = -tmp29
        tmp31 = libdevice.exp(tmp30)
        tmp32 = tl.full([1, 1], 1.0, tl.float32)
        tmp33 = tmp31 + tmp32
        tmp34 = (tmp29 / tmp33)
        tmp35 = tmp34.to(tl.float32)
        tmp36 = tmp27 * tmp35
        tmp38 = tmp27 * tmp37
        tmp39 = tmp38.to(tl.float32)
        tmp40 = (tmp6 / tmp33)
        tmp41 = tmp40 * tmp32
        tmp42 = tmp39 * tmp41
        tmp43 = tmp35 * tmp37
        tmp44 = tl_math.abs(tmp43)
        tmp45 = tl.broadcast_to(tmp44, [XBLOCK, R0_BLOCK])
        tmp47 = tl.where((_tmp46 > tmp45) | (_tmp46 != _tmp46), _tmp46, tmp45)
        _tmp46 = tl.where(r0_mask & xmask, tmp47, _tmp46)
        tmp48 = tmp32 - tmp41
        tmp49 = tmp29 * tmp48
        tmp50 = tmp49 + tmp32
        tmp51 = tmp42 * tmp50
        tmp52 = tmp51.to(tl.float32)
        tmp53 = tl_math.abs(tmp52)
        tmp54 = tl.broadcast_to(tmp53, [XBLOCK, R0_BLOCK])
        tmp56 = tl.where((_tmp55 > tmp54) | (_tmp55 != _tmp55), _tmp55, tmp54)
        _tmp55 = tl.where(r0_mask & xmask, tmp56, _tmp55)
        tmp57 = tl_math.abs(tmp36)
        tmp58 = tl.broadcast_to(tmp57, [XBLOCK, R0_BLOCK])
        tmp60 = tl.where((_tmp59 > tmp58) | (_tmp59 != _tmp59), _tmp59, tmp58)
        _tmp59 = tl.where(r0_mask & xmask, tmp60, _tmp59)
        tl.store(out_ptr0 + (x0 + 768*r0_2 + 98304*x1), tmp36, r0_mask & xmask)
        tl.store(out_ptr1 + (x0 + 768*r0_2 + 98304*x1), tmp42, r0_mask & xmask)
    tmp46 = triton_helpers.max2(_tmp46, 1)[:, None]
    tmp55 = triton_helpers.max2(_tmp55, 1)[:, None]
    tmp59 = triton_helpers.max2(_tmp59, 1)[:, None]
    tl.store(out_ptr2 + (x3), tmp46, xmask)
    tl.store(out_ptr3 + (x3), tmp55, xmask)
    tl.store(out_ptr4 + (x3), tmp59, xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/4e/c4eljm2id2hbfwkgjjbi6n4awnr44jwny7cmoi6hvsth5uvo4ahq.py
# Topologically Sorted Source Nodes: [convert_element_type_68, convert_element_type_69, clamp_min_30, reciprocal_30, mul_45, convert_element_type_70, log2_15, floor_15, exp2_15, t, output, mul_46, clamp_min_31, clamp_max_15, convert_element_type_72, clone_6, permute_28, _scaled_mm_7], Original ATen: [aten._to_copy, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.t, aten.clone, aten._scaled_mm]
# Source node to ATen node mapping:
#   _scaled_mm_7 => _scaled_mm_7
#   clamp_max_15 => clamp_max_15
#   clamp_min_30 => clamp_min_30
#   clamp_min_31 => clamp_min_31
#   clone_6 => clone_6
#   convert_element_type_68 => convert_element_type_68
#   convert_element_type_69 => convert_element_type_69
#   convert_element_type_70 => convert_element_type_70
#   convert_element_type_72 => convert_element_type_72
#   exp2_15 => exp2_15
#   floor_15 => floor_15
#   log2_15 => log2_15
#   mul_45 => mul_45
#   mul_46 => mul_46
#   output => convert_element_type_6
#   permute_28 => permute_28
#   reciprocal_30 => reciprocal_30
#   t => permute
# Graph fragment:
#   %primals_2 : Tensor "bf16[768, 256][256, 1]cuda:0" = PlaceHolder[target=primals_2]
#   %amax_15 : Tensor "bf16[256, 1][1, 256]cuda:0" = PlaceHolder[target=amax_15]
#   %convert_element_type_68 : Tensor "f8e4m3fn[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max_14, torch.float8_e4m3fn), kwargs = {})
#   %convert_element_type_69 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_15, torch.float64), kwargs = {})
#   %clamp_min_30 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_69, 1e-12), kwargs = {})
#   %reciprocal_30 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_30,), kwargs = {})
#   %mul_45 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_30, 448.0), kwargs = {})
#   %convert_element_type_70 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_45, torch.float32), kwargs = {})
#   %log2_15 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_70,), kwargs = {})
#   %floor_15 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_15,), kwargs = {})
#   %exp2_15 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_15,), kwargs = {})
#   %permute : Tensor "bf16[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%primals_2, [1, 0]), kwargs = {})
#   %convert_element_type_6 : Tensor "f32[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%permute, torch.float32), kwargs = {})
#   %mul_46 : Tensor "f32[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_6, %exp2_15), kwargs = {})
#   %clamp_min_31 : Tensor "f32[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%mul_46, -448.0), kwargs = {})
#   %clamp_max_15 : Tensor "f32[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_max.default](args = (%clamp_min_31, 448.0), kwargs = {})
#   %convert_element_type_72 : Tensor "f8e4m3fn[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max_15, torch.float8_e4m3fn), kwargs = {})
#   %clone_6 : Tensor "f8e4m3fn[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%convert_element_type_72,), kwargs = {memory_format: torch.contiguous_format})
#   %permute_28 : Tensor "f8e4m3fn[768, 256][1, 768]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%clone_6, [1, 0]), kwargs = {})
#   %_scaled_mm_7 : Tensor "bf16[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten._scaled_mm.default](args = (%convert_element_type_68, %permute_28, %full_default, %full_default, None, None, torch.bfloat16), kwargs = {})
#   return %buf42
triton_poi_fused__scaled_mm__to_copy_clamp_clone_exp2_floor_log2_mul_reciprocal_t_12 = async_compile.triton('triton_poi_fused__scaled_mm__to_copy_clamp_clone_exp2_floor_log2_mul_reciprocal_t_12', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'y': 1024, 'x': 256}, tile_hint=TileHint.DEFAULT,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*bf16', 'in_ptr1': '*bf16', 'out_ptr0': '*fp8e4nv', 'ynumel': 'i32', 'xnumel': 'i32', 'YBLOCK': 'constexpr', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid2D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused__scaled_mm__to_copy_clamp_clone_exp2_floor_log2_mul_reciprocal_t_12', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 2, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'y': 393216, 'x': 393728}},
    min_elem_per_thread=2
)
@triton.jit
def triton_poi_fused__scaled_mm__to_copy_clamp_clone_exp2_floor_log2_mul_reciprocal_t_12(in_ptr0, in_ptr1, out_ptr0, ynumel, xnumel, YBLOCK : tl.constexpr, XBLOCK : tl.constexpr):
    ynumel = 768
    xnumel = 256
    yoffset = tl.program_id(1) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[:, None]
    ymask = yindex < ynumel
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    x1 = xindex
    y0 = yindex
    tmp0 = tl.load(in_ptr0 + (x1 + 256*y0), xmask & ymask, eviction_policy='evict_last').to(tl.float32)
    tmp2 = tl.load(in_ptr1 + (x1), xmask, eviction_policy='evict_last').to(tl.float32)
    tmp1 = tmp0.to(tl.float32)
    tmp3 = tmp2.to(tl.float64)
    tmp4 = tl.full([1, 1], 1e-12, tl.float64)
    tmp5 = tl.where((tmp3 > tmp4) | (tmp3 != tmp3), tmp3, tmp4)
    tmp6 = tl.full([1, 1], 1, tl.int32)
    tmp7 = (tmp6 / tmp5)
    tmp8 = tl.full([1, 1], 448.0, tl.float64)
    tmp9 = tmp7 * tmp8
    tmp10 = tmp9.to(tl.float32)
    tmp11 = libdevice.log2(tmp10)
    tmp12 = libdevice.floor(tmp11)
    tmp13 = libdevice.exp2(tmp12)
    tmp14 = tmp1 * tmp13
    tmp15 = tl.full([1, 1], -448.0, tl.float32)
    tmp16 = tl.where((tmp14 > tmp15) | (tmp14 != tmp14), tmp14, tmp15)
    tmp17 = tl.full([1, 1], 448.0, tl.float32)
    tmp18 = tl.where((tmp16 < tmp17) | (tmp16 != tmp16), tmp16, tmp17)
    tmp19 = tmp18.to(tl.float8e4nv)
    tl.store(out_ptr0 + (y0 + 768*x1), tmp19, xmask & ymask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/et/cetbllod6iquk6wxmimdrdbhzy7rouleonmljur6rwi2mhmau6bn.py
# Topologically Sorted Source Nodes: [t_1, output_1, view_13, abs_11, amax_10, convert_element_type_44, clamp_min_20, reciprocal_20, mul_27, convert_element_type_45, log2_10, floor_10, exp2_10, convert_element_type_46, mul_28, clamp_min_21, clamp_max_10, convert_element_type_47, convert_element_type_48, clamp_min_22, reciprocal_21, mul_29, convert_element_type_49, log2_11, floor_11, exp2_11, mul_30, clamp_min_23, clamp_max_11, convert_element_type_51, clone_3, permute_17, _scaled_mm_5, view_15, convert_element_type_53, clamp_min_24, reciprocal_24, mul_33, convert_element_type_54, log2_12, floor_12, exp2_12, mul_34, clamp_min_25, clamp_max_12, convert_element_type_56, convert_element_type_57, clamp_min_26, reciprocal_25, mul_35, convert_element_type_58, log2_13, floor_13, exp2_13, convert_element_type_59, mul_36, clamp_min_27, clamp_max_13, convert_element_type_60, permute_18, clone_4, permute_20, clone_5, permute_21, _scaled_mm_6], Original ATen: [aten.t, aten._to_copy, aten.view, aten.abs, aten.amax, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.clone, aten._scaled_mm]
# Source node to ATen node mapping:
#   _scaled_mm_5 => _scaled_mm_5
#   _scaled_mm_6 => _scaled_mm_6
#   abs_11 => abs_11
#   amax_10 => amax_10
#   clamp_max_10 => clamp_max_10
#   clamp_max_11 => clamp_max_11
#   clamp_max_12 => clamp_max_12
#   clamp_max_13 => clamp_max_13
#   clamp_min_20 => clamp_min_20
#   clamp_min_21 => clamp_min_21
#   clamp_min_22 => clamp_min_22
#   clamp_min_23 => clamp_min_23
#   clamp_min_24 => clamp_min_24
#   clamp_min_25 => clamp_min_25
#   clamp_min_26 => clamp_min_26
#   clamp_min_27 => clamp_min_27
#   clone_3 => clone_3
#   clone_4 => clone_4
#   clone_5 => clone_5
#   convert_element_type_44 => convert_element_type_44
#   convert_element_type_45 => convert_element_type_45
#   convert_element_type_46 => convert_element_type_46
#   convert_element_type_47 => convert_element_type_47
#   convert_element_type_48 => convert_element_type_48
#   convert_element_type_49 => convert_element_type_49
#   convert_element_type_51 => convert_element_type_51
#   convert_element_type_53 => convert_element_type_53
#   convert_element_type_54 => convert_element_type_54
#   convert_element_type_56 => convert_element_type_56
#   convert_element_type_57 => convert_element_type_57
#   convert_element_type_58 => convert_element_type_58
#   convert_element_type_59 => convert_element_type_59
#   convert_element_type_60 => convert_element_type_60
#   exp2_10 => exp2_10
#   exp2_11 => exp2_11
#   exp2_12 => exp2_12
#   exp2_13 => exp2_13
#   floor_10 => floor_10
#   floor_11 => floor_11
#   floor_12 => floor_12
#   floor_13 => floor_13
#   log2_10 => log2_10
#   log2_11 => log2_11
#   log2_12 => log2_12
#   log2_13 => log2_13
#   mul_27 => mul_27
#   mul_28 => mul_28
#   mul_29 => mul_29
#   mul_30 => mul_30
#   mul_33 => mul_33
#   mul_34 => mul_34
#   mul_35 => mul_35
#   mul_36 => mul_36
#   output_1 => convert_element_type_16
#   permute_17 => permute_17
#   permute_18 => permute_18
#   permute_20 => permute_20
#   permute_21 => permute_21
#   reciprocal_20 => reciprocal_20
#   reciprocal_21 => reciprocal_21
#   reciprocal_24 => reciprocal_24
#   reciprocal_25 => reciprocal_25
#   t_1 => permute_1
#   view_13 => view_13
#   view_15 => view_15
# Graph fragment:
#   %mul_25 : Tensor "bf16[2, 128, 768][98304, 768, 1]cuda:0" = PlaceHolder[target=mul_25]
#   %amax_10 : Tensor "bf16[256, 1][1, 256]cuda:0" = PlaceHolder[target=amax_10]
#   %amax_12 : Tensor "bf16[1, 768][768, 1]cuda:0" = PlaceHolder[target=amax_12]
#   %permute_1 : Tensor "bf16[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%primals_3, [1, 0]), kwargs = {})
#   %convert_element_type_16 : Tensor "f32[256, 768][1, 256]cuda:0"[num_users=2] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%permute_1, torch.float32), kwargs = {})
#   %view_13 : Tensor "bf16[256, 768][768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reshape.default](args = (%mul_25, [-1, 768]), kwargs = {})
#   %abs_11 : Tensor "bf16[256, 768][768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.abs.default](args = (%view_13,), kwargs = {})
#   %amax_10 : Tensor "bf16[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.amax.default](args = (%abs_11, [-1], True), kwargs = {})
#   %convert_element_type_44 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_10, torch.float64), kwargs = {})
#   %clamp_min_20 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_44, 1e-12), kwargs = {})
#   %reciprocal_20 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_20,), kwargs = {})
#   %mul_27 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_20, 448.0), kwargs = {})
#   %convert_element_type_45 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_27, torch.float32), kwargs = {})
#   %log2_10 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_45,), kwargs = {})
#   %floor_10 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_10,), kwargs = {})
#   %exp2_10 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_10,), kwargs = {})
#   %convert_element_type_46 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%view_13, torch.float32), kwargs = {})
#   %mul_28 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_46, %exp2_10), kwargs = {})
#   %clamp_min_21 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%mul_28, -448.0), kwargs = {})
#   %clamp_max_10 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_max.default](args = (%clamp_min_21, 448.0), kwargs = {})
#   %convert_element_type_47 : Tensor "f8e4m3fn[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max_10, torch.float8_e4m3fn), kwargs = {})
#   %convert_element_type_48 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_11, torch.float64), kwargs = {})
#   %clamp_min_22 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_48, 1e-12), kwargs = {})
#   %reciprocal_21 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_22,), kwargs = {})
#   %mul_29 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_21, 448.0), kwargs = {})
#   %convert_element_type_49 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_29, torch.float32), kwargs = {})
#   %log2_11 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_49,), kwargs = {})
#   %floor_11 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_11,), kwargs = {})
#   %exp2_11 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_11,), kwargs = {})
#   %mul_30 : Tensor "f32[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_16, %exp2_11), kwargs = {})
#   %clamp_min_23 : Tensor "f32[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%mul_30, -448.0), kwargs = {})
#   %clamp_max_11 : Tensor "f32[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_max.default](args = (%clamp_min_23, 448.0), kwargs = {})
#   %convert_element_type_51 : Tensor "f8e4m3fn[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max_11, torch.float8_e4m3fn), kwargs = {})
#   %clone_3 : Tensor "f8e4m3fn[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%convert_element_type_51,), kwargs = {memory_format: torch.contiguous_format})
#   %permute_17 : Tensor "f8e4m3fn[768, 256][1, 768]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%clone_3, [1, 0]), kwargs = {})
#   %_scaled_mm_5 : Tensor "bf16[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten._scaled_mm.default](args = (%convert_element_type_47, %permute_17, %full_default, %full_default, None, None, torch.bfloat16), kwargs = {})
#   %view_15 : Tensor "bf16[256, 256][256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reshape.default](args = (%primals_1, [-1, 256]), kwargs = {})
#   %convert_element_type_53 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_12, torch.float64), kwargs = {})
#   %clamp_min_24 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_53, 1e-12), kwargs = {})
#   %reciprocal_24 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_24,), kwargs = {})
#   %mul_33 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_24, 448.0), kwargs = {})
#   %convert_element_type_54 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_33, torch.float32), kwargs = {})
#   %log2_12 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_54,), kwargs = {})
#   %floor_12 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_12,), kwargs = {})
#   %exp2_12 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_12,), kwargs = {})
#   %mul_34 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_46, %exp2_12), kwargs = {})
#   %clamp_min_25 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%mul_34, -448.0), kwargs = {})
#   %clamp_max_12 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_max.default](args = (%clamp_min_25, 448.0), kwargs = {})
#   %convert_element_type_56 : Tensor "f8e4m3fn[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max_12, torch.float8_e4m3fn), kwargs = {})
#   %convert_element_type_57 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_13, torch.float64), kwargs = {})
#   %clamp_min_26 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_57, 1e-12), kwargs = {})
#   %reciprocal_25 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_26,), kwargs = {})
#   %mul_35 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_25, 448.0), kwargs = {})
#   %convert_element_type_58 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_35, torch.float32), kwargs = {})
#   %log2_13 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_58,), kwargs = {})
#   %floor_13 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_13,), kwargs = {})
#   %exp2_13 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_13,), kwargs = {})
#   %convert_element_type_59 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%view_15, torch.float32), kwargs = {})
#   %mul_36 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_59, %exp2_13), kwargs = {})
#   %clamp_min_27 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%mul_36, -448.0), kwargs = {})
#   %clamp_max_13 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_max.default](args = (%clamp_min_27, 448.0), kwargs = {})
#   %convert_element_type_60 : Tensor "f8e4m3fn[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max_13, torch.float8_e4m3fn), kwargs = {})
#   %permute_18 : Tensor "f8e4m3fn[768, 256][1, 768]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%convert_element_type_56, [1, 0]), kwargs = {})
#   %clone_4 : Tensor "f8e4m3fn[768, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%permute_18,), kwargs = {memory_format: torch.contiguous_format})
#   %permute_20 : Tensor "f8e4m3fn[256, 256][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%convert_element_type_60, [1, 0]), kwargs = {})
#   %clone_5 : Tensor "f8e4m3fn[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%permute_20,), kwargs = {memory_format: torch.contiguous_format})
#   %permute_21 : Tensor "f8e4m3fn[256, 256][1, 256]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.permute.default](args = (%clone_5, [1, 0]), kwargs = {})
#   %_scaled_mm_6 : Tensor "bf16[768, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten._scaled_mm.default](args = (%clone_4, %permute_21, %full_default, %full_default, None, None, torch.bfloat16), kwargs = {})
#   return %amax_10,%buf25,%buf32
triton_red_fused__scaled_mm__to_copy_abs_amax_clamp_clone_exp2_floor_log2_mul_reciprocal_t_view_13 = async_compile.triton('triton_red_fused__scaled_mm__to_copy_abs_amax_clamp_clone_exp2_floor_log2_mul_reciprocal_t_view_13', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.reduction(
    size_hints={'x': 256, 'r0_': 1024},
    reduction_hint=ReductionHint.DEFAULT,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*bf16', 'in_ptr1': '*bf16', 'out_ptr0': '*bf16', 'out_ptr1': '*fp8e4nv', 'out_ptr2': '*fp8e4nv', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_red_fused__scaled_mm__to_copy_abs_amax_clamp_clone_exp2_floor_log2_mul_reciprocal_t_view_13', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 3, 'num_store': 3, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 394240, 'r0_': 787968}}
)
@triton.jit
def triton_red_fused__scaled_mm__to_copy_abs_amax_clamp_clone_exp2_floor_log2_mul_reciprocal_t_view_13(in_ptr0, in_ptr1, out_ptr0, out_ptr1, out_ptr2, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    xnumel = 256
    r0_numel = 768
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    rbase = r0_base
    x0 = xindex
    _tmp3 = tl.full([XBLOCK, R0_BLOCK], float("-inf"), tl.float32)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_1 = r0_index
        tmp0 = tl.load(in_ptr0 + (r0_1 + 768*x0), r0_mask & xmask, eviction_policy='evict_last', other=0.0).to(tl.float32)
        tmp1 = tl_math.abs(tmp0)
        tmp2 = tl.broadcast_to(tmp1, [XBLOCK, R0_BLOCK])
        tmp4 = tl.where((_tmp3 > tmp2) | (_tmp3 != _tmp3), _tmp3, tmp2)
        _tmp3 = tl.where(r0_mask & xmask, tmp4, _tmp3)
    tmp3 = triton_helpers.max2(_tmp3, 1)[:, None]
    tl.store(out_ptr0 + (x0), tmp3, xmask)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_1 = r0_index
        tmp5 = tl.load(in_ptr0 + (r0_1 + 768*x0), r0_mask & xmask, eviction_policy='evict_first', other=0.0).to(tl.float32)
        tmp24 = tl.load(in_ptr1 + (r0_1), r0_mask, eviction_policy='evict_last', other=0.0).to(tl.float32)
        tmp6 = tmp5.to(tl.float32)
        tmp7 = tmp3.to(tl.float64)
        tmp8 = tl.full([1, 1], 1e-12, tl.float64)
        tmp9 = tl.where((tmp7 > tmp8) | (tmp7 != tmp7), tmp7, tmp8)
        tmp10 = tl.full([1, 1], 1, tl.int32)
        tmp11 = (tmp10 / tmp9)
        tmp12 = tl.full([1, 1], 448.0, tl.float64)
        tmp13 = tmp11 * tmp12
        tmp14 = tmp13.to(tl.float32)
        tmp15 = libdevice.log2(tmp14)
        tmp16 = libdevice.floor(tmp15)
        tmp17 = libdevice.exp2(tmp16)
        tmp18 = tmp6 * tmp17
        tmp19 = tl.full([1, 1], -448.0, tl.float32)
        tmp20 = tl.where((tmp18 > tmp19) | (tmp18 != tmp18), tmp18, tmp19)
        tmp21 = tl.full([1, 1], 448.0, tl.float32)
        tmp22 = tl.where((tmp20 < tmp21) | (tmp20 != tmp20), tmp20, tmp21)
        tmp23 = tmp22.to(tl.float8e4nv)
        tmp25 = tmp24.to(tl.float64)
        tmp26 = tl.where((tmp25 > tmp8) | (tmp25 != tmp25), tmp25, tmp8)
        tmp27 = (tmp10 / tmp26)
        tmp28 = tmp27 * tmp12
        tmp29 = tmp28.to(tl.float32)
        tmp30 = libdevice.log2(tmp29)
        tmp31 = libdevice.floor(tmp30)
        tmp32 = libdevice.exp2(tmp31)
        tmp33 = tmp6 * tmp32
        tmp34 = tl.where((tmp33 > tmp19) | (tmp33 != tmp33), tmp33, tmp19)
        tmp35 = tl.where((tmp34 < tmp21) | (tmp34 != tmp34), tmp34, tmp21)
        tmp36 = tmp35.to(tl.float8e4nv)
        tl.store(out_ptr1 + (r0_1 + 768*x0), tmp23, r0_mask & xmask)
        tl.store(out_ptr2 + (x0 + 256*r0_1), tmp36, r0_mask & xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/fo/cfoyuayxwod7adfhkvj7sqsuwny6eo7ketezsdbwosm5lnaeoukr.py
# Topologically Sorted Source Nodes: [view_9, convert_element_type_28, output, silu, output_1, mul, view_11, convert_element_type_35, clamp_min_16, reciprocal_16, mul_19, convert_element_type_36, log2_8, floor_8, exp2_8, mul_20, clamp_min_17, clamp_max_8, convert_element_type_38, convert_element_type_39, clamp_min_18, reciprocal_17, mul_21, convert_element_type_40, log2_9, floor_9, exp2_9, convert_element_type_41, mul_22, clamp_min_19, clamp_max_9, convert_element_type_42, permute_7, clone_1, permute_9, clone_2, permute_10, _scaled_mm_4, view_15, convert_element_type_57, clamp_min_26, reciprocal_25, mul_35, convert_element_type_58, log2_13, floor_13, exp2_13, convert_element_type_59, mul_36, clamp_min_27, clamp_max_13, convert_element_type_60, permute_20, clone_5, permute_21, reciprocal_28, mul_39, sub, mul_41, add_4, mul_42, convert_element_type_64, view_17, abs_15, amax_14, convert_element_type_65, clamp_min_28, reciprocal_29, mul_43, convert_element_type_66, log2_14, floor_14, exp2_14, convert_element_type_67, mul_44, clamp_min_29, clamp_max_14, convert_element_type_68, convert_element_type_69, clamp_min_30, reciprocal_30, mul_45, convert_element_type_70, log2_15, floor_15, exp2_15, t, mul_46, clamp_min_31, clamp_max_15, convert_element_type_72, clone_6, permute_28, _scaled_mm_7, convert_element_type_74, clamp_min_32, reciprocal_33, mul_49, convert_element_type_75, log2_16, floor_16, exp2_16, mul_50, clamp_min_33, clamp_max_16, convert_element_type_77, permute_29, clone_7, _scaled_mm_8], Original ATen: [aten.view, aten._to_copy, aten.silu, aten.mul, aten.clamp, aten.reciprocal, aten.log2, aten.floor, aten.exp2, aten.t, aten.clone, aten._scaled_mm, aten.silu_backward, aten.abs, aten.amax]
# Source node to ATen node mapping:
#   _scaled_mm_4 => _scaled_mm_4
#   _scaled_mm_7 => _scaled_mm_7
#   _scaled_mm_8 => _scaled_mm_8
#   abs_15 => abs_15
#   add_4 => add_4
#   amax_14 => amax_14
#   clamp_max_13 => clamp_max_13
#   clamp_max_14 => clamp_max_14
#   clamp_max_15 => clamp_max_15
#   clamp_max_16 => clamp_max_16
#   clamp_max_8 => clamp_max_8
#   clamp_max_9 => clamp_max_9
#   clamp_min_16 => clamp_min_16
#   clamp_min_17 => clamp_min_17
#   clamp_min_18 => clamp_min_18
#   clamp_min_19 => clamp_min_19
#   clamp_min_26 => clamp_min_26
#   clamp_min_27 => clamp_min_27
#   clamp_min_28 => clamp_min_28
#   clamp_min_29 => clamp_min_29
#   clamp_min_30 => clamp_min_30
#   clamp_min_31 => clamp_min_31
#   clamp_min_32 => clamp_min_32
#   clamp_min_33 => clamp_min_33
#   clone_1 => clone_1
#   clone_2 => clone_2
#   clone_5 => clone_5
#   clone_6 => clone_6
#   clone_7 => clone_7
#   convert_element_type_28 => convert_element_type_28
#   convert_element_type_35 => convert_element_type_35
#   convert_element_type_36 => convert_element_type_36
#   convert_element_type_38 => convert_element_type_38
#   convert_element_type_39 => convert_element_type_39
#   convert_element_type_40 => convert_element_type_40
#   convert_element_type_41 => convert_element_type_41
#   convert_element_type_42 => convert_element_type_42
#   convert_element_type_57 => convert_element_type_57
#   convert_element_type_58 => convert_element_type_58
#   convert_element_type_59 => convert_element_type_59
#   convert_element_type_60 => convert_element_type_60
#   convert_element_type_64 => convert_element_type_64
#   convert_element_type_65 => convert_element_type_65
#   convert_element_type_66 => convert_element_type_66
#   convert_element_type_67 => convert_element_type_67
#   convert_element_type_68 => convert_element_type_68
#   convert_element_type_69 => convert_element_type_69
#   convert_element_type_70 => convert_element_type_70
#   convert_element_type_72 => convert_element_type_72
#   convert_element_type_74 => convert_element_type_74
#   convert_element_type_75 => convert_element_type_75
#   convert_element_type_77 => convert_element_type_77
#   exp2_13 => exp2_13
#   exp2_14 => exp2_14
#   exp2_15 => exp2_15
#   exp2_16 => exp2_16
#   exp2_8 => exp2_8
#   exp2_9 => exp2_9
#   floor_13 => floor_13
#   floor_14 => floor_14
#   floor_15 => floor_15
#   floor_16 => floor_16
#   floor_8 => floor_8
#   floor_9 => floor_9
#   log2_13 => log2_13
#   log2_14 => log2_14
#   log2_15 => log2_15
#   log2_16 => log2_16
#   log2_8 => log2_8
#   log2_9 => log2_9
#   mul => mul_8
#   mul_19 => mul_19
#   mul_20 => mul_20
#   mul_21 => mul_21
#   mul_22 => mul_22
#   mul_35 => mul_35
#   mul_36 => mul_36
#   mul_39 => mul_39
#   mul_41 => mul_41
#   mul_42 => mul_42
#   mul_43 => mul_43
#   mul_44 => mul_44
#   mul_45 => mul_45
#   mul_46 => mul_46
#   mul_49 => mul_49
#   mul_50 => mul_50
#   output => convert_element_type_6, view_2
#   output_1 => view_5
#   permute_10 => permute_10
#   permute_20 => permute_20
#   permute_21 => permute_21
#   permute_28 => permute_28
#   permute_29 => permute_29
#   permute_7 => permute_7
#   permute_9 => permute_9
#   reciprocal_16 => reciprocal_16
#   reciprocal_17 => reciprocal_17
#   reciprocal_25 => reciprocal_25
#   reciprocal_28 => reciprocal_28
#   reciprocal_29 => reciprocal_29
#   reciprocal_30 => reciprocal_30
#   reciprocal_33 => reciprocal_33
#   silu => add, convert_element_type_8, convert_element_type_9, div, exp, neg
#   sub => sub
#   t => permute
#   view_11 => view_11
#   view_15 => view_15
#   view_17 => view_17
#   view_9 => view_9
# Graph fragment:
#   %mul_40 : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0" = PlaceHolder[target=mul_40]
#   %_scaled_mm : Tensor "bf16[256, 768][768, 1]cuda:0" = PlaceHolder[target=_scaled_mm]
#   %_scaled_mm_1 : Tensor "bf16[256, 768][768, 1]cuda:0" = PlaceHolder[target=_scaled_mm_1]
#   %amax_9 : Tensor "bf16[1, 768][768, 1]cuda:0" = PlaceHolder[target=amax_9]
#   %amax_14 : Tensor "bf16[256, 1][1, 256]cuda:0" = PlaceHolder[target=amax_14]
#   %amax_16 : Tensor "bf16[1, 768][768, 1]cuda:0" = PlaceHolder[target=amax_16]
#   %clamp_max_14 : Tensor "f32[256, 768][768, 1]cuda:0" = PlaceHolder[target=clamp_max_14]
#   %clamp_max_16 : Tensor "f32[256, 768][768, 1]cuda:0" = PlaceHolder[target=clamp_max_16]
#   %view_9 : Tensor "bf16[256, 256][256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reshape.default](args = (%tangents_1, [-1, 256]), kwargs = {})
#   %convert_element_type_28 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%view_9, torch.float32), kwargs = {})
#   %view_2 : Tensor "bf16[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%_scaled_mm, [2, 128, 768]), kwargs = {})
#   %convert_element_type_8 : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%view_2, torch.float32), kwargs = {})
#   %neg : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.neg.default](args = (%convert_element_type_8,), kwargs = {})
#   %exp : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.exp.default](args = (%neg,), kwargs = {})
#   %add : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.add.Tensor](args = (%exp, 1), kwargs = {})
#   %div : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.div.Tensor](args = (%convert_element_type_8, %add), kwargs = {})
#   %convert_element_type_9 : Tensor "bf16[2, 128, 768][98304, 768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%div, torch.bfloat16), kwargs = {})
#   %view_5 : Tensor "bf16[2, 128, 768][98304, 768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reshape.default](args = (%_scaled_mm_1, [2, 128, 768]), kwargs = {})
#   %mul_8 : Tensor "bf16[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_9, %view_5), kwargs = {})
#   %view_11 : Tensor "bf16[256, 768][768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reshape.default](args = (%mul_8, [-1, 768]), kwargs = {})
#   %convert_element_type_35 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_8, torch.float64), kwargs = {})
#   %clamp_min_16 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_35, 1e-12), kwargs = {})
#   %reciprocal_16 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_16,), kwargs = {})
#   %mul_19 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_16, 448.0), kwargs = {})
#   %convert_element_type_36 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_19, torch.float32), kwargs = {})
#   %log2_8 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_36,), kwargs = {})
#   %floor_8 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_8,), kwargs = {})
#   %exp2_8 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_8,), kwargs = {})
#   %mul_20 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_28, %exp2_8), kwargs = {})
#   %clamp_min_17 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%mul_20, -448.0), kwargs = {})
#   %clamp_max_8 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_max.default](args = (%clamp_min_17, 448.0), kwargs = {})
#   %convert_element_type_38 : Tensor "f8e4m3fn[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max_8, torch.float8_e4m3fn), kwargs = {})
#   %convert_element_type_39 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_9, torch.float64), kwargs = {})
#   %clamp_min_18 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_39, 1e-12), kwargs = {})
#   %reciprocal_17 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_18,), kwargs = {})
#   %mul_21 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_17, 448.0), kwargs = {})
#   %convert_element_type_40 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_21, torch.float32), kwargs = {})
#   %log2_9 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_40,), kwargs = {})
#   %floor_9 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_9,), kwargs = {})
#   %exp2_9 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_9,), kwargs = {})
#   %convert_element_type_41 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%view_11, torch.float32), kwargs = {})
#   %mul_22 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_41, %exp2_9), kwargs = {})
#   %clamp_min_19 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%mul_22, -448.0), kwargs = {})
#   %clamp_max_9 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_max.default](args = (%clamp_min_19, 448.0), kwargs = {})
#   %convert_element_type_42 : Tensor "f8e4m3fn[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max_9, torch.float8_e4m3fn), kwargs = {})
#   %permute_7 : Tensor "f8e4m3fn[256, 256][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%convert_element_type_38, [1, 0]), kwargs = {})
#   %clone_1 : Tensor "f8e4m3fn[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%permute_7,), kwargs = {memory_format: torch.contiguous_format})
#   %permute_9 : Tensor "f8e4m3fn[768, 256][1, 768]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%convert_element_type_42, [1, 0]), kwargs = {})
#   %clone_2 : Tensor "f8e4m3fn[768, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%permute_9,), kwargs = {memory_format: torch.contiguous_format})
#   %permute_10 : Tensor "f8e4m3fn[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%clone_2, [1, 0]), kwargs = {})
#   %_scaled_mm_4 : Tensor "bf16[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten._scaled_mm.default](args = (%clone_1, %permute_10, %full_default, %full_default, None, None, torch.bfloat16), kwargs = {})
#   %view_15 : Tensor "bf16[256, 256][256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reshape.default](args = (%primals_1, [-1, 256]), kwargs = {})
#   %convert_element_type_57 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_13, torch.float64), kwargs = {})
#   %clamp_min_26 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_57, 1e-12), kwargs = {})
#   %reciprocal_25 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_26,), kwargs = {})
#   %mul_35 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_25, 448.0), kwargs = {})
#   %convert_element_type_58 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_35, torch.float32), kwargs = {})
#   %log2_13 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_58,), kwargs = {})
#   %floor_13 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_13,), kwargs = {})
#   %exp2_13 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_13,), kwargs = {})
#   %convert_element_type_59 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%view_15, torch.float32), kwargs = {})
#   %mul_36 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_59, %exp2_13), kwargs = {})
#   %clamp_min_27 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%mul_36, -448.0), kwargs = {})
#   %clamp_max_13 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_max.default](args = (%clamp_min_27, 448.0), kwargs = {})
#   %convert_element_type_60 : Tensor "f8e4m3fn[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max_13, torch.float8_e4m3fn), kwargs = {})
#   %permute_20 : Tensor "f8e4m3fn[256, 256][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%convert_element_type_60, [1, 0]), kwargs = {})
#   %clone_5 : Tensor "f8e4m3fn[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%permute_20,), kwargs = {memory_format: torch.contiguous_format})
#   %permute_21 : Tensor "f8e4m3fn[256, 256][1, 256]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.permute.default](args = (%clone_5, [1, 0]), kwargs = {})
#   %reciprocal_28 : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%add,), kwargs = {})
#   %mul_39 : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_28, 1), kwargs = {})
#   %sub : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (1, %mul_39), kwargs = {})
#   %mul_41 : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_8, %sub), kwargs = {})
#   %add_4 : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mul_41, 1), kwargs = {})
#   %mul_42 : Tensor "f32[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_40, %add_4), kwargs = {})
#   %convert_element_type_64 : Tensor "bf16[2, 128, 768][98304, 768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_42, torch.bfloat16), kwargs = {})
#   %view_17 : Tensor "bf16[256, 768][768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reshape.default](args = (%convert_element_type_64, [-1, 768]), kwargs = {})
#   %abs_15 : Tensor "bf16[256, 768][768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.abs.default](args = (%view_17,), kwargs = {})
#   %amax_14 : Tensor "bf16[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.amax.default](args = (%abs_15, [-1], True), kwargs = {})
#   %convert_element_type_65 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_14, torch.float64), kwargs = {})
#   %clamp_min_28 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_65, 1e-12), kwargs = {})
#   %reciprocal_29 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_28,), kwargs = {})
#   %mul_43 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_29, 448.0), kwargs = {})
#   %convert_element_type_66 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_43, torch.float32), kwargs = {})
#   %log2_14 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_66,), kwargs = {})
#   %floor_14 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_14,), kwargs = {})
#   %exp2_14 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_14,), kwargs = {})
#   %convert_element_type_67 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%view_17, torch.float32), kwargs = {})
#   %mul_44 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_67, %exp2_14), kwargs = {})
#   %clamp_min_29 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%mul_44, -448.0), kwargs = {})
#   %clamp_max_14 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_max.default](args = (%clamp_min_29, 448.0), kwargs = {})
#   %convert_element_type_68 : Tensor "f8e4m3fn[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max_14, torch.float8_e4m3fn), kwargs = {})
#   %convert_element_type_69 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_15, torch.float64), kwargs = {})
#   %clamp_min_30 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_69, 1e-12), kwargs = {})
#   %reciprocal_30 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_30,), kwargs = {})
#   %mul_45 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_30, 448.0), kwargs = {})
#   %convert_element_type_70 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_45, torch.float32), kwargs = {})
#   %log2_15 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_70,), kwargs = {})
#   %floor_15 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_15,), kwargs = {})
#   %exp2_15 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_15,), kwargs = {})
#   %permute : Tensor "bf16[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%primals_2, [1, 0]), kwargs = {})
#   %convert_element_type_6 : Tensor "f32[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%permute, torch.float32), kwargs = {})
#   %mul_46 : Tensor "f32[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_6, %exp2_15), kwargs = {})
#   %clamp_min_31 : Tensor "f32[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%mul_46, -448.0), kwargs = {})
#   %clamp_max_15 : Tensor "f32[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_max.default](args = (%clamp_min_31, 448.0), kwargs = {})
#   %convert_element_type_72 : Tensor "f8e4m3fn[256, 768][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max_15, torch.float8_e4m3fn), kwargs = {})
#   %clone_6 : Tensor "f8e4m3fn[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%convert_element_type_72,), kwargs = {memory_format: torch.contiguous_format})
#   %permute_28 : Tensor "f8e4m3fn[768, 256][1, 768]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%clone_6, [1, 0]), kwargs = {})
#   %_scaled_mm_7 : Tensor "bf16[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten._scaled_mm.default](args = (%convert_element_type_68, %permute_28, %full_default, %full_default, None, None, torch.bfloat16), kwargs = {})
#   %convert_element_type_74 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_16, torch.float64), kwargs = {})
#   %clamp_min_32 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_74, 1e-12), kwargs = {})
#   %reciprocal_33 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_32,), kwargs = {})
#   %mul_49 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_33, 448.0), kwargs = {})
#   %convert_element_type_75 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_49, torch.float32), kwargs = {})
#   %log2_16 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_75,), kwargs = {})
#   %floor_16 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_16,), kwargs = {})
#   %exp2_16 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_16,), kwargs = {})
#   %mul_50 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_67, %exp2_16), kwargs = {})
#   %clamp_min_33 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%mul_50, -448.0), kwargs = {})
#   %clamp_max_16 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_max.default](args = (%clamp_min_33, 448.0), kwargs = {})
#   %convert_element_type_77 : Tensor "f8e4m3fn[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max_16, torch.float8_e4m3fn), kwargs = {})
#   %permute_29 : Tensor "f8e4m3fn[768, 256][1, 768]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%convert_element_type_77, [1, 0]), kwargs = {})
#   %clone_7 : Tensor "f8e4m3fn[768, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%permute_29,), kwargs = {memory_format: torch.contiguous_format})
#   %_scaled_mm_8 : Tensor "bf16[768, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten._scaled_mm.default](args = (%clone_7, %permute_21, %full_default, %full_default, None, None, torch.bfloat16), kwargs = {})
#   return %amax_14,%buf18,%clamp_max_14,%clamp_max_16,%buf41,%buf47
triton_red_fused__scaled_mm__to_copy_abs_amax_clamp_clone_exp2_floor_log2_mul_reciprocal_silu_silu_backward_t_view_14 = async_compile.triton('triton_red_fused__scaled_mm__to_copy_abs_amax_clamp_clone_exp2_floor_log2_mul_reciprocal_silu_silu_backward_t_view_14', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.reduction(
    size_hints={'x': 256, 'r0_': 1024},
    reduction_hint=ReductionHint.DEFAULT,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'in_ptr1': '*bf16', 'in_ptr2': '*bf16', 'in_ptr3': '*bf16', 'in_ptr4': '*bf16', 'out_ptr0': '*bf16', 'out_ptr1': '*fp8e4nv', 'out_ptr4': '*fp8e4nv', 'out_ptr5': '*fp8e4nv', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]], (8,): [['tt.divisibility', 16]], (9,): [['tt.divisibility', 16]], (10,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_red_fused__scaled_mm__to_copy_abs_amax_clamp_clone_exp2_floor_log2_mul_reciprocal_silu_silu_backward_t_view_14', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 7, 'num_store': 4, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 787456, 'r0_': 1969152}}
)
@triton.jit
def triton_red_fused__scaled_mm__to_copy_abs_amax_clamp_clone_exp2_floor_log2_mul_reciprocal_silu_silu_backward_t_view_14(in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, out_ptr0, out_ptr1, out_ptr4, out_ptr5, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    xnumel = 256
    r0_numel = 768
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    rbase = r0_base
    x0 = xindex
    _tmp17 = tl.full([XBLOCK, R0_BLOCK], float("-inf"), tl.float32)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_1 = r0_index
        tmp0 = tl.load(in_ptr0 + (r0_1 + 768*x0), r0_mask & xmask, eviction_policy='evict_last', other=0.0)
        tmp1 = tl.load(in_ptr1 + (r0_1 + 768*x0), r0_mask & xmask, eviction_policy='evict_last', other=0.0).to(tl.float32)
        tmp21 = tl.load(in_ptr2 + (r0_1 + 768*x0), r0_mask & xmask, eviction_policy='evict_first', other=0.0).to(tl.float32)
        tmp24 = tl.load(in_ptr3 + (r0_1), r0_mask, eviction_policy='evict_last', other=0.0).to(tl.float32)
        tmp2 = tmp1.to(tl.float32)
        tmp3 = -tmp2
        tmp4 = libdevice.exp(tmp3)
        tmp5 = tl.full([1, 1], 1.0, tl.float32)
        tmp6 = tmp4 + tmp5
        tmp7 = tl.full([1, 1], 1, tl.int32)
        tmp8 = (tmp7 / tmp6)
        tmp9 = tmp8 * tmp5
        tmp10 = tmp5 - tmp9
        tmp11 = tmp2 * tmp10
        tmp12 = tmp11 + tmp5
        tmp13 = tmp0 * tmp12
        tmp14 = tmp13.to(tl.float32)
        tmp15 = tl_math.abs(tmp14)
        tmp16 = tl.broadcast_to(tmp15, [XBLOCK, R0_BLOCK])
        tmp18 = tl.where((_tmp17 > tmp16) | (_tmp17 != _tmp17), _tmp17, tmp16)
        _tmp17 = tl.where(r0_mask & xmask, tmp18, _tmp17)
        tmp19 = (tmp2 / tmp6)
        tmp20 = tmp19.to(tl.float32)
        tmp22 = tmp20 * tmp21
        tmp23 = tmp22.to(tl.float32)
        tmp25 = tmp24.to(tl.float64)
        tmp26 = tl.full([1, 1], 1e-12, tl.float64)
        tmp27 = tl.where((tmp25 > tmp26) | (tmp25 != tmp25), tmp25, tmp26)
        tmp28 = (tmp7 / tmp27)
        tmp29 = tl.full([1, 1], 448.0, tl.float64)
        tmp30 = tmp28 * tmp29
        tmp31 = tmp30.to(tl.float32)
        tmp32 = libdevice.log2(tmp31)
        tmp33 = libdevice.floor(tmp32)
        tmp34 = libdevice.exp2(tmp33)
        tmp35 = tmp23 * tmp34
        tmp36 = tl.full([1, 1], -448.0, tl.float32)
        tmp37 = tl.where((tmp35 > tmp36) | (tmp35 != tmp35), tmp35, tmp36)
        tmp38 = tl.full([1, 1], 448.0, tl.float32)
        tmp39 = tl.where((tmp37 < tmp38) | (tmp37 != tmp37), tmp37, tmp38)
        tmp40 = tmp39.to(tl.float8e4nv)
        tl.store(out_ptr1 + (x0 + 256*r0_1), tmp40, r0_mask & xmask)
    tmp17 = triton_helpers.max2(_tmp17, 1)[:, None]
    tl.store(out_ptr0 + (x0), tmp17, xmask)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        roffset = r0_offset
        rindex = r0_index
        r0_1 = r0_index
        tmp41 = tl.load(in_ptr0 + (r0_1 + 768*x0), r0_mask & xmask, eviction_policy='evict_first', other=0.0)
        tmp42 = tl.load(in_ptr1 + (r0_1 + 768*x0), r0_mask & xmask, eviction_policy='evict_first', other=0.0).to(tl.float32)
        tmp72 = tl.load(in_ptr4 + (r0_1), r0_mask, eviction_policy='evict_last', other=0.0).to(tl.float32)
        tmp43 = tmp42.to(tl.float32)
        tmp44 = -tmp43
        tmp45 = libdevice.exp(tmp44)
        tmp46 = tl.full([1, 1], 1.0, tl.float32)
        tmp47 = tmp45 + tmp46
        tmp48 = tl.full([1, 1], 1, tl.int32)
        tmp49 = (tmp48 / tmp47)
        tmp50 = tmp49 * tmp46
        tmp51 = tmp46 - tmp50
        tmp52 = tmp43 * tmp51
        tmp53 = tmp52 + tmp46
        tmp54 = tmp41 * tmp53
        tmp55 = tmp54.to(tl.float32)
        tmp56 = tmp55.to(tl.float32)
        tmp57 = tmp17.to(tl.float64)
        tmp58 = tl.full([1, 1], 1e-12, tl.float64)
        tmp59 = tl.where((tmp57 > tmp58) | (tmp57 != tmp57), tmp57, tmp58)
        tmp60 = (tmp48 / tmp59)
        tmp61 = tl.full([1, 1], 448.0, tl.float64)
        tmp62 = tmp60 * tmp61
        tmp63 = tmp62.to(tl.float32)
        tmp64 = libdevice.log2(tmp63)
        tmp65 = libdevice.floor(tmp64)
        tmp66 = libdevice.exp2(tmp65)
        tmp67 = tmp56 * tmp66
        tmp68 = tl.full([1, 1], -448.0, tl.float32)
        tmp69 = tl.where((tmp67 > tmp68) | (tmp67 != tmp67), tmp67, tmp68)
        tmp70 = tl.full([1, 1], 448.0, tl.float32)
        tmp71 = tl.where((tmp69 < tmp70) | (tmp69 != tmp69), tmp69, tmp70)
        tmp73 = tmp72.to(tl.float64)
        tmp74 = tl.where((tmp73 > tmp58) | (tmp73 != tmp73), tmp73, tmp58)
        tmp75 = (tmp48 / tmp74)
        tmp76 = tmp75 * tmp61
        tmp77 = tmp76.to(tl.float32)
        tmp78 = libdevice.log2(tmp77)
        tmp79 = libdevice.floor(tmp78)
        tmp80 = libdevice.exp2(tmp79)
        tmp81 = tmp56 * tmp80
        tmp82 = tl.where((tmp81 > tmp68) | (tmp81 != tmp81), tmp81, tmp68)
        tmp83 = tl.where((tmp82 < tmp70) | (tmp82 != tmp82), tmp82, tmp70)
        tmp84 = tmp71.to(tl.float8e4nv)
        tmp85 = tmp83.to(tl.float8e4nv)
        tl.store(out_ptr4 + (r0_1 + 768*x0), tmp84, r0_mask & xmask)
        tl.store(out_ptr5 + (x0 + 256*r0_1), tmp85, r0_mask & xmask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/cl/cclxyngulax3y7xm2fndigzphnta5hvnmp6p5ew5poguf4mcmker.py
# Topologically Sorted Source Nodes: [convert_element_type_44, clamp_min_20, reciprocal_20, mul_27, convert_element_type_45, log2_10, floor_10, exp2_10, convert_element_type_48, clamp_min_22, reciprocal_21, mul_29, convert_element_type_49, log2_11, floor_11, exp2_11, permute_15, reciprocal_22, reciprocal_23, mul_31, mul_32, convert_element_type_52, view_16, add_2, convert_element_type_65, clamp_min_28, reciprocal_29, mul_43, convert_element_type_66, log2_14, floor_14, exp2_14, convert_element_type_69, clamp_min_30, reciprocal_30, mul_45, convert_element_type_70, log2_15, floor_15, exp2_15, permute_26, reciprocal_31, reciprocal_32, mul_47, mul_48, convert_element_type_73, view_20, add_5], Original ATen: [aten._to_copy, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.t, aten.view, aten.add]
# Source node to ATen node mapping:
#   add_2 => add_2
#   add_5 => add_5
#   clamp_min_20 => clamp_min_20
#   clamp_min_22 => clamp_min_22
#   clamp_min_28 => clamp_min_28
#   clamp_min_30 => clamp_min_30
#   convert_element_type_44 => convert_element_type_44
#   convert_element_type_45 => convert_element_type_45
#   convert_element_type_48 => convert_element_type_48
#   convert_element_type_49 => convert_element_type_49
#   convert_element_type_52 => convert_element_type_52
#   convert_element_type_65 => convert_element_type_65
#   convert_element_type_66 => convert_element_type_66
#   convert_element_type_69 => convert_element_type_69
#   convert_element_type_70 => convert_element_type_70
#   convert_element_type_73 => convert_element_type_73
#   exp2_10 => exp2_10
#   exp2_11 => exp2_11
#   exp2_14 => exp2_14
#   exp2_15 => exp2_15
#   floor_10 => floor_10
#   floor_11 => floor_11
#   floor_14 => floor_14
#   floor_15 => floor_15
#   log2_10 => log2_10
#   log2_11 => log2_11
#   log2_14 => log2_14
#   log2_15 => log2_15
#   mul_27 => mul_27
#   mul_29 => mul_29
#   mul_31 => mul_31
#   mul_32 => mul_32
#   mul_43 => mul_43
#   mul_45 => mul_45
#   mul_47 => mul_47
#   mul_48 => mul_48
#   permute_15 => permute_15
#   permute_26 => permute_26
#   reciprocal_20 => reciprocal_20
#   reciprocal_21 => reciprocal_21
#   reciprocal_22 => reciprocal_22
#   reciprocal_23 => reciprocal_23
#   reciprocal_29 => reciprocal_29
#   reciprocal_30 => reciprocal_30
#   reciprocal_31 => reciprocal_31
#   reciprocal_32 => reciprocal_32
#   view_16 => view_16
#   view_20 => view_20
# Graph fragment:
#   %tangents_1 : Tensor "bf16[2, 128, 256][32768, 256, 1]cuda:0" = PlaceHolder[target=tangents_1]
#   %_scaled_mm_5 : Tensor "bf16[256, 256][256, 1]cuda:0" = PlaceHolder[target=_scaled_mm_5]
#   %amax_10 : Tensor "bf16[256, 1][1, 256]cuda:0" = PlaceHolder[target=amax_10]
#   %amax_11 : Tensor "bf16[256, 1][1, 256]cuda:0" = PlaceHolder[target=amax_11]
#   %_scaled_mm_7 : Tensor "bf16[256, 256][256, 1]cuda:0" = PlaceHolder[target=_scaled_mm_7]
#   %amax_14 : Tensor "bf16[256, 1][1, 256]cuda:0" = PlaceHolder[target=amax_14]
#   %amax_15 : Tensor "bf16[256, 1][1, 256]cuda:0" = PlaceHolder[target=amax_15]
#   %convert_element_type_44 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_10, torch.float64), kwargs = {})
#   %clamp_min_20 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_44, 1e-12), kwargs = {})
#   %reciprocal_20 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_20,), kwargs = {})
#   %mul_27 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_20, 448.0), kwargs = {})
#   %convert_element_type_45 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_27, torch.float32), kwargs = {})
#   %log2_10 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_45,), kwargs = {})
#   %floor_10 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_10,), kwargs = {})
#   %exp2_10 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_10,), kwargs = {})
#   %convert_element_type_48 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_11, torch.float64), kwargs = {})
#   %clamp_min_22 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_48, 1e-12), kwargs = {})
#   %reciprocal_21 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_22,), kwargs = {})
#   %mul_29 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_21, 448.0), kwargs = {})
#   %convert_element_type_49 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_29, torch.float32), kwargs = {})
#   %log2_11 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_49,), kwargs = {})
#   %floor_11 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_11,), kwargs = {})
#   %exp2_11 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_11,), kwargs = {})
#   %permute_15 : Tensor "f32[1, 256][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%exp2_11, [1, 0]), kwargs = {})
#   %reciprocal_22 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%exp2_10,), kwargs = {})
#   %reciprocal_23 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%permute_15,), kwargs = {})
#   %mul_31 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_22, %reciprocal_23), kwargs = {})
#   %mul_32 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%_scaled_mm_5, %mul_31), kwargs = {})
#   %convert_element_type_52 : Tensor "bf16[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_32, torch.bfloat16), kwargs = {})
#   %view_16 : Tensor "bf16[2, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%convert_element_type_52, [2, 128, 256]), kwargs = {})
#   %add_2 : Tensor "bf16[2, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%tangents_1, %view_16), kwargs = {})
#   %convert_element_type_65 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_14, torch.float64), kwargs = {})
#   %clamp_min_28 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_65, 1e-12), kwargs = {})
#   %reciprocal_29 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_28,), kwargs = {})
#   %mul_43 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_29, 448.0), kwargs = {})
#   %convert_element_type_66 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_43, torch.float32), kwargs = {})
#   %log2_14 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_66,), kwargs = {})
#   %floor_14 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_14,), kwargs = {})
#   %exp2_14 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_14,), kwargs = {})
#   %convert_element_type_69 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_15, torch.float64), kwargs = {})
#   %clamp_min_30 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_69, 1e-12), kwargs = {})
#   %reciprocal_30 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_30,), kwargs = {})
#   %mul_45 : Tensor "f64[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_30, 448.0), kwargs = {})
#   %convert_element_type_70 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_45, torch.float32), kwargs = {})
#   %log2_15 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_70,), kwargs = {})
#   %floor_15 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_15,), kwargs = {})
#   %exp2_15 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_15,), kwargs = {})
#   %permute_26 : Tensor "f32[1, 256][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%exp2_15, [1, 0]), kwargs = {})
#   %reciprocal_31 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%exp2_14,), kwargs = {})
#   %reciprocal_32 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%permute_26,), kwargs = {})
#   %mul_47 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_31, %reciprocal_32), kwargs = {})
#   %mul_48 : Tensor "f32[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%_scaled_mm_7, %mul_47), kwargs = {})
#   %convert_element_type_73 : Tensor "bf16[256, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_48, torch.bfloat16), kwargs = {})
#   %view_20 : Tensor "bf16[2, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%convert_element_type_73, [2, 128, 256]), kwargs = {})
#   %add_5 : Tensor "bf16[2, 128, 256][32768, 256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%add_2, %view_20), kwargs = {})
#   return %add_5
triton_poi_fused__to_copy_add_clamp_exp2_floor_log2_mul_reciprocal_t_view_15 = async_compile.triton('triton_poi_fused__to_copy_add_clamp_exp2_floor_log2_mul_reciprocal_t_view_15', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'y': 512, 'x': 128}, tile_hint=TileHint.DEFAULT,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*bf16', 'in_ptr0': '*bf16', 'in_ptr1': '*bf16', 'in_ptr2': '*bf16', 'in_ptr3': '*bf16', 'in_ptr4': '*bf16', 'in_ptr5': '*bf16', 'ynumel': 'i32', 'xnumel': 'i32', 'YBLOCK': 'constexpr', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]], (8,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid2D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused__to_copy_add_clamp_exp2_floor_log2_mul_reciprocal_t_view_15', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 7, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'y': 656384, 'x': 1024}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused__to_copy_add_clamp_exp2_floor_log2_mul_reciprocal_t_view_15(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, in_ptr5, ynumel, xnumel, YBLOCK : tl.constexpr, XBLOCK : tl.constexpr):
    ynumel = 512
    xnumel = 128
    yoffset = tl.program_id(1) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[:, None]
    ymask = yindex < ynumel
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    x2 = xindex
    y0 = (yindex % 256)
    y1 = yindex // 256
    tmp0 = tl.load(in_ptr0 + (y0 + 256*x2 + 32768*y1), xmask & ymask, eviction_policy='evict_last').to(tl.float32)
    tmp1 = tl.load(in_out_ptr0 + (y0 + 256*x2 + 32768*y1), xmask & ymask, eviction_policy='evict_last').to(tl.float32)
    tmp3 = tl.load(in_ptr1 + (x2 + 128*y1), xmask & ymask, eviction_policy='evict_last').to(tl.float32)
    tmp16 = tl.load(in_ptr2 + (y0), ymask, eviction_policy='evict_last').to(tl.float32)
    tmp30 = tl.load(in_ptr3 + (y0 + 256*x2 + 32768*y1), xmask & ymask, eviction_policy='evict_last').to(tl.float32)
    tmp32 = tl.load(in_ptr4 + (x2 + 128*y1), xmask & ymask, eviction_policy='evict_last').to(tl.float32)
    tmp42 = tl.load(in_ptr5 + (y0), ymask, eviction_policy='evict_last').to(tl.float32)
    tmp2 = tmp1.to(tl.float32)
    tmp4 = tmp3.to(tl.float64)
    tmp5 = tl.full([1, 1], 1e-12, tl.float64)
    tmp6 = tl.where((tmp4 > tmp5) | (tmp4 != tmp4), tmp4, tmp5)
    tmp7 = tl.full([1, 1], 1, tl.int32)
    tmp8 = (tmp7 / tmp6)
    tmp9 = tl.full([1, 1], 448.0, tl.float64)
    tmp10 = tmp8 * tmp9
    tmp11 = tmp10.to(tl.float32)
    tmp12 = libdevice.log2(tmp11)
    tmp13 = libdevice.floor(tmp12)
    tmp14 = libdevice.exp2(tmp13)
    tmp15 = (tmp7 / tmp14)
    tmp17 = tmp16.to(tl.float64)
    tmp18 = tl.where((tmp17 > tmp5) | (tmp17 != tmp17), tmp17, tmp5)
    tmp19 = (tmp7 / tmp18)
    tmp20 = tmp19 * tmp9
    tmp21 = tmp20.to(tl.float32)
    tmp22 = libdevice.log2(tmp21)
    tmp23 = libdevice.floor(tmp22)
    tmp24 = libdevice.exp2(tmp23)
    tmp25 = (tmp7 / tmp24)
    tmp26 = tmp15 * tmp25
    tmp27 = tmp2 * tmp26
    tmp28 = tmp27.to(tl.float32)
    tmp29 = tmp0 + tmp28
    tmp31 = tmp30.to(tl.float32)
    tmp33 = tmp32.to(tl.float64)
    tmp34 = tl.where((tmp33 > tmp5) | (tmp33 != tmp33), tmp33, tmp5)
    tmp35 = (tmp7 / tmp34)
    tmp36 = tmp35 * tmp9
    tmp37 = tmp36.to(tl.float32)
    tmp38 = libdevice.log2(tmp37)
    tmp39 = libdevice.floor(tmp38)
    tmp40 = libdevice.exp2(tmp39)
    tmp41 = (tmp7 / tmp40)
    tmp43 = tmp42.to(tl.float64)
    tmp44 = tl.where((tmp43 > tmp5) | (tmp43 != tmp43), tmp43, tmp5)
    tmp45 = (tmp7 / tmp44)
    tmp46 = tmp45 * tmp9
    tmp47 = tmp46.to(tl.float32)
    tmp48 = libdevice.log2(tmp47)
    tmp49 = libdevice.floor(tmp48)
    tmp50 = libdevice.exp2(tmp49)
    tmp51 = (tmp7 / tmp50)
    tmp52 = tmp41 * tmp51
    tmp53 = tmp31 * tmp52
    tmp54 = tmp53.to(tl.float32)
    tmp55 = tmp29 + tmp54
    tl.debug_barrier()
    tl.store(in_out_ptr0 + (y0 + 256*x2 + 32768*y1), tmp55, xmask & ymask)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/zc/czcllzsyh4vznjt73dxzusvrge3acnqjjhkcde4q2u5s4z5peybz.py
# Topologically Sorted Source Nodes: [convert_element_type_35, clamp_min_16, reciprocal_16, mul_19, convert_element_type_36, log2_8, floor_8, exp2_8, convert_element_type_39, clamp_min_18, reciprocal_17, mul_21, convert_element_type_40, log2_9, floor_9, exp2_9, permute_8, reciprocal_18, reciprocal_19, mul_23, mul_24, convert_element_type_43], Original ATen: [aten._to_copy, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.t]
# Source node to ATen node mapping:
#   clamp_min_16 => clamp_min_16
#   clamp_min_18 => clamp_min_18
#   convert_element_type_35 => convert_element_type_35
#   convert_element_type_36 => convert_element_type_36
#   convert_element_type_39 => convert_element_type_39
#   convert_element_type_40 => convert_element_type_40
#   convert_element_type_43 => convert_element_type_43
#   exp2_8 => exp2_8
#   exp2_9 => exp2_9
#   floor_8 => floor_8
#   floor_9 => floor_9
#   log2_8 => log2_8
#   log2_9 => log2_9
#   mul_19 => mul_19
#   mul_21 => mul_21
#   mul_23 => mul_23
#   mul_24 => mul_24
#   permute_8 => permute_8
#   reciprocal_16 => reciprocal_16
#   reciprocal_17 => reciprocal_17
#   reciprocal_18 => reciprocal_18
#   reciprocal_19 => reciprocal_19
# Graph fragment:
#   %_scaled_mm_4 : Tensor "bf16[256, 768][768, 1]cuda:0" = PlaceHolder[target=_scaled_mm_4]
#   %amax_8 : Tensor "bf16[1, 256][256, 1]cuda:0" = PlaceHolder[target=amax_8]
#   %amax_9 : Tensor "bf16[1, 768][768, 1]cuda:0" = PlaceHolder[target=amax_9]
#   %convert_element_type_35 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_8, torch.float64), kwargs = {})
#   %clamp_min_16 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_35, 1e-12), kwargs = {})
#   %reciprocal_16 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_16,), kwargs = {})
#   %mul_19 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_16, 448.0), kwargs = {})
#   %convert_element_type_36 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_19, torch.float32), kwargs = {})
#   %log2_8 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_36,), kwargs = {})
#   %floor_8 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_8,), kwargs = {})
#   %exp2_8 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_8,), kwargs = {})
#   %convert_element_type_39 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_9, torch.float64), kwargs = {})
#   %clamp_min_18 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_39, 1e-12), kwargs = {})
#   %reciprocal_17 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_18,), kwargs = {})
#   %mul_21 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_17, 448.0), kwargs = {})
#   %convert_element_type_40 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_21, torch.float32), kwargs = {})
#   %log2_9 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_40,), kwargs = {})
#   %floor_9 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_9,), kwargs = {})
#   %exp2_9 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_9,), kwargs = {})
#   %permute_8 : Tensor "f32[256, 1][1, 256]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%exp2_8, [1, 0]), kwargs = {})
#   %reciprocal_18 : Tensor "f32[256, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%permute_8,), kwargs = {})
#   %reciprocal_19 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%exp2_9,), kwargs = {})
#   %mul_23 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_18, %reciprocal_19), kwargs = {})
#   %mul_24 : Tensor "f32[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%_scaled_mm_4, %mul_23), kwargs = {})
#   %convert_element_type_43 : Tensor "bf16[256, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_24, torch.bfloat16), kwargs = {})
#   return %convert_element_type_43
triton_poi_fused__to_copy_clamp_exp2_floor_log2_mul_reciprocal_t_16 = async_compile.triton('triton_poi_fused__to_copy_clamp_exp2_floor_log2_mul_reciprocal_t_16', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 262144}, 
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*bf16', 'in_ptr0': '*bf16', 'in_ptr1': '*bf16', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused__to_copy_clamp_exp2_floor_log2_mul_reciprocal_t_16', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 3, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 1181184}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused__to_copy_clamp_exp2_floor_log2_mul_reciprocal_t_16(in_out_ptr0, in_ptr0, in_ptr1, xnumel, XBLOCK : tl.constexpr):
    xnumel = 196608
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    x2 = xindex
    x1 = xindex // 768
    x0 = (xindex % 768)
    tmp0 = tl.load(in_out_ptr0 + (x2), None).to(tl.float32)
    tmp2 = tl.load(in_ptr0 + (x1), None, eviction_policy='evict_last').to(tl.float32)
    tmp15 = tl.load(in_ptr1 + (x0), None, eviction_policy='evict_last').to(tl.float32)
    tmp1 = tmp0.to(tl.float32)
    tmp3 = tmp2.to(tl.float64)
    tmp4 = tl.full([1], 1e-12, tl.float64)
    tmp5 = tl.where((tmp3 > tmp4) | (tmp3 != tmp3), tmp3, tmp4)
    tmp6 = tl.full([1], 1, tl.int32)
    tmp7 = (tmp6 / tmp5)
    tmp8 = tl.full([1], 448.0, tl.float64)
    tmp9 = tmp7 * tmp8
    tmp10 = tmp9.to(tl.float32)
    tmp11 = libdevice.log2(tmp10)
    tmp12 = libdevice.floor(tmp11)
    tmp13 = libdevice.exp2(tmp12)
    tmp14 = (tmp6 / tmp13)
    tmp16 = tmp15.to(tl.float64)
    tmp17 = tl.where((tmp16 > tmp4) | (tmp16 != tmp16), tmp16, tmp4)
    tmp18 = (tmp6 / tmp17)
    tmp19 = tmp18 * tmp8
    tmp20 = tmp19.to(tl.float32)
    tmp21 = libdevice.log2(tmp20)
    tmp22 = libdevice.floor(tmp21)
    tmp23 = libdevice.exp2(tmp22)
    tmp24 = (tmp6 / tmp23)
    tmp25 = tmp14 * tmp24
    tmp26 = tmp1 * tmp25
    tmp27 = tmp26.to(tl.float32)
    tl.store(in_out_ptr0 + (x2), tmp27, None)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/pj/cpj6n2nzz7rbytjfoabk5aivglusdvhdzpdsxw7ymrxalmkeegfm.py
# Topologically Sorted Source Nodes: [convert_element_type_53, clamp_min_24, reciprocal_24, mul_33, convert_element_type_54, log2_12, floor_12, exp2_12, convert_element_type_57, clamp_min_26, reciprocal_25, mul_35, convert_element_type_58, log2_13, floor_13, exp2_13, permute_19, reciprocal_26, reciprocal_27, mul_37, mul_38, convert_element_type_61], Original ATen: [aten._to_copy, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.t]
# Source node to ATen node mapping:
#   clamp_min_24 => clamp_min_24
#   clamp_min_26 => clamp_min_26
#   convert_element_type_53 => convert_element_type_53
#   convert_element_type_54 => convert_element_type_54
#   convert_element_type_57 => convert_element_type_57
#   convert_element_type_58 => convert_element_type_58
#   convert_element_type_61 => convert_element_type_61
#   exp2_12 => exp2_12
#   exp2_13 => exp2_13
#   floor_12 => floor_12
#   floor_13 => floor_13
#   log2_12 => log2_12
#   log2_13 => log2_13
#   mul_33 => mul_33
#   mul_35 => mul_35
#   mul_37 => mul_37
#   mul_38 => mul_38
#   permute_19 => permute_19
#   reciprocal_24 => reciprocal_24
#   reciprocal_25 => reciprocal_25
#   reciprocal_26 => reciprocal_26
#   reciprocal_27 => reciprocal_27
# Graph fragment:
#   %_scaled_mm_6 : Tensor "bf16[768, 256][256, 1]cuda:0" = PlaceHolder[target=_scaled_mm_6]
#   %amax_12 : Tensor "bf16[1, 768][768, 1]cuda:0" = PlaceHolder[target=amax_12]
#   %amax_13 : Tensor "bf16[1, 256][256, 1]cuda:0" = PlaceHolder[target=amax_13]
#   %convert_element_type_53 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_12, torch.float64), kwargs = {})
#   %clamp_min_24 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_53, 1e-12), kwargs = {})
#   %reciprocal_24 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_24,), kwargs = {})
#   %mul_33 : Tensor "f64[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_24, 448.0), kwargs = {})
#   %convert_element_type_54 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_33, torch.float32), kwargs = {})
#   %log2_12 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_54,), kwargs = {})
#   %floor_12 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_12,), kwargs = {})
#   %exp2_12 : Tensor "f32[1, 768][768, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_12,), kwargs = {})
#   %convert_element_type_57 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%amax_13, torch.float64), kwargs = {})
#   %clamp_min_26 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%convert_element_type_57, 1e-12), kwargs = {})
#   %reciprocal_25 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%clamp_min_26,), kwargs = {})
#   %mul_35 : Tensor "f64[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_25, 448.0), kwargs = {})
#   %convert_element_type_58 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_35, torch.float32), kwargs = {})
#   %log2_13 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.log2.default](args = (%convert_element_type_58,), kwargs = {})
#   %floor_13 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.floor.default](args = (%log2_13,), kwargs = {})
#   %exp2_13 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.exp2.default](args = (%floor_13,), kwargs = {})
#   %permute_19 : Tensor "f32[768, 1][1, 768]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%exp2_12, [1, 0]), kwargs = {})
#   %reciprocal_26 : Tensor "f32[768, 1][1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reciprocal.default](args = (%permute_19,), kwargs = {})
#   %reciprocal_27 : Tensor "f32[1, 256][256, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.reciprocal.default](args = (%exp2_13,), kwargs = {})
#   %mul_37 : Tensor "f32[768, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%reciprocal_26, %reciprocal_27), kwargs = {})
#   %mul_38 : Tensor "f32[768, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%_scaled_mm_6, %mul_37), kwargs = {})
#   %convert_element_type_61 : Tensor "bf16[768, 256][256, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul_38, torch.bfloat16), kwargs = {})
#   return %convert_element_type_61
triton_poi_fused__to_copy_clamp_exp2_floor_log2_mul_reciprocal_t_17 = async_compile.triton('triton_poi_fused__to_copy_clamp_exp2_floor_log2_mul_reciprocal_t_17', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 262144}, 
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*bf16', 'in_ptr0': '*bf16', 'in_ptr1': '*bf16', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused__to_copy_clamp_exp2_floor_log2_mul_reciprocal_t_17', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 3, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 1180160}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused__to_copy_clamp_exp2_floor_log2_mul_reciprocal_t_17(in_out_ptr0, in_ptr0, in_ptr1, xnumel, XBLOCK : tl.constexpr):
    xnumel = 196608
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)[:]
    x2 = xindex
    x1 = xindex // 256
    x0 = (xindex % 256)
    tmp0 = tl.load(in_out_ptr0 + (x2), None).to(tl.float32)
    tmp2 = tl.load(in_ptr0 + (x1), None, eviction_policy='evict_last').to(tl.float32)
    tmp15 = tl.load(in_ptr1 + (x0), None, eviction_policy='evict_last').to(tl.float32)
    tmp1 = tmp0.to(tl.float32)
    tmp3 = tmp2.to(tl.float64)
    tmp4 = tl.full([1], 1e-12, tl.float64)
    tmp5 = tl.where((tmp3 > tmp4) | (tmp3 != tmp3), tmp3, tmp4)
    tmp6 = tl.full([1], 1, tl.int32)
    tmp7 = (tmp6 / tmp5)
    tmp8 = tl.full([1], 448.0, tl.float64)
    tmp9 = tmp7 * tmp8
    tmp10 = tmp9.to(tl.float32)
    tmp11 = libdevice.log2(tmp10)
    tmp12 = libdevice.floor(tmp11)
    tmp13 = libdevice.exp2(tmp12)
    tmp14 = (tmp6 / tmp13)
    tmp16 = tmp15.to(tl.float64)
    tmp17 = tl.where((tmp16 > tmp4) | (tmp16 != tmp16), tmp16, tmp4)
    tmp18 = (tmp6 / tmp17)
    tmp19 = tmp18 * tmp8
    tmp20 = tmp19.to(tl.float32)
    tmp21 = libdevice.log2(tmp20)
    tmp22 = libdevice.floor(tmp21)
    tmp23 = libdevice.exp2(tmp22)
    tmp24 = (tmp6 / tmp23)
    tmp25 = tmp14 * tmp24
    tmp26 = tmp1 * tmp25
    tmp27 = tmp26.to(tl.float32)
    tl.store(in_out_ptr0 + (x2), tmp27, None)
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
        primals_1, primals_2, primals_3, primals_4, abs_1, abs_2, reciprocal_2, _scaled_mm, abs_4, abs_6, tangents_1 = args
        args.clear()
        assert_size_stride(primals_1, (2, 128, 256), (32768, 256, 1))
        assert_size_stride(primals_2, (768, 256), (256, 1))
        assert_size_stride(primals_3, (768, 256), (256, 1))
        assert_size_stride(primals_4, (256, 768), (768, 1))
        assert_size_stride(abs_1, (2, 128, 256), (32768, 256, 1))
        assert_size_stride(abs_2, (256, 768), (1, 256))
        assert_size_stride(reciprocal_2, (256, 1), (1, 1))
        assert_size_stride(_scaled_mm, (256, 768), (768, 1))
        assert_size_stride(abs_4, (256, 768), (1, 256))
        assert_size_stride(abs_6, (768, 256), (1, 768))
        assert_size_stride(tangents_1, (2, 128, 256), (32768, 256, 1))
        with torch.cuda._DeviceGuard(0):
            torch.cuda.set_device(0)
            buf5 = empty_strided_cuda((), (), torch.float32)
            # Topologically Sorted Source Nodes: [full_default], Original ATen: [aten.new_ones]
            stream0 = get_raw_stream(0)
            triton_poi_fused_new_ones_0.run(buf5, 1, stream=stream0)
            buf13 = empty_strided_cuda((1, 256, 2), (512, 1, 256), torch.float32)
            # Topologically Sorted Source Nodes: [view_9, abs_7, amax_8], Original ATen: [aten.view, aten.abs, aten.amax]
            stream0 = get_raw_stream(0)
            triton_red_fused_abs_amax_view_1.run(tangents_1, buf13, 512, 128, stream=stream0)
            buf30 = empty_strided_cuda((1, 256, 2), (512, 1, 256), torch.float32)
            # Topologically Sorted Source Nodes: [view_15, abs_14, amax_13], Original ATen: [aten.view, aten.abs, aten.amax]
            stream0 = get_raw_stream(0)
            triton_red_fused_abs_amax_view_1.run(primals_1, buf30, 512, 128, stream=stream0)
            buf14 = empty_strided_cuda((1, 256), (256, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [view_9, abs_7, amax_8], Original ATen: [aten.view, aten.abs, aten.amax]
            stream0 = get_raw_stream(0)
            triton_per_fused_abs_amax_view_2.run(buf13, buf14, 256, 2, stream=stream0)
            del buf13
            buf31 = empty_strided_cuda((1, 256), (256, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [view_15, abs_14, amax_13], Original ATen: [aten.view, aten.abs, aten.amax]
            stream0 = get_raw_stream(0)
            triton_per_fused_abs_amax_view_2.run(buf30, buf31, 256, 2, stream=stream0)
            del buf30
            buf23 = empty_strided_cuda((256, 1, 6), (1, 1536, 256), torch.float32)
            # Topologically Sorted Source Nodes: [amax_11], Original ATen: [aten.amax]
            stream0 = get_raw_stream(0)
            triton_red_fused_amax_3.run(abs_4, buf23, 1536, 128, stream=stream0)
            buf24 = empty_strided_cuda((256, 1), (1, 256), torch.bfloat16)
            # Topologically Sorted Source Nodes: [amax_11], Original ATen: [aten.amax]
            stream0 = get_raw_stream(0)
            triton_per_fused_amax_4.run(buf23, buf24, 256, 6, stream=stream0)
            buf39 = buf23; del buf23  # reuse
            # Topologically Sorted Source Nodes: [amax_15], Original ATen: [aten.amax]
            stream0 = get_raw_stream(0)
            triton_red_fused_amax_3.run(abs_2, buf39, 1536, 128, stream=stream0)
            del abs_2
            buf40 = empty_strided_cuda((256, 1), (1, 256), torch.bfloat16)
            # Topologically Sorted Source Nodes: [amax_15], Original ATen: [aten.amax]
            stream0 = get_raw_stream(0)
            triton_per_fused_amax_4.run(buf39, buf40, 256, 6, stream=stream0)
            buf1 = reinterpret_tensor(buf39, (768, 1, 2), (1, 1536, 768), 0); del buf39  # reuse
            # Topologically Sorted Source Nodes: [amax_7], Original ATen: [aten.amax]
            stream0 = get_raw_stream(0)
            triton_red_fused_amax_5.run(abs_6, buf1, 1536, 128, stream=stream0)
            del abs_6
            buf2 = empty_strided_cuda((768, 1), (1, 768), torch.bfloat16)
            # Topologically Sorted Source Nodes: [amax_7], Original ATen: [aten.amax]
            stream0 = get_raw_stream(0)
            triton_per_fused_amax_6.run(buf1, buf2, 768, 2, stream=stream0)
            buf0 = empty_strided_cuda((256, 1), (1, 256), torch.bfloat16)
            buf3 = empty_strided_cuda((256, 256), (256, 1), torch.float8_e4m3fn)
            buf17 = empty_strided_cuda((256, 256), (256, 1), torch.float8_e4m3fn)
            # Topologically Sorted Source Nodes: [view_9, abs_7, amax_6, convert_element_type_26, clamp_min_12, reciprocal_12, mul_13, convert_element_type_27, log2_6, floor_6, exp2_6, convert_element_type_28, mul_14, clamp_min_13, clamp_max_6, convert_element_type_29, convert_element_type_30, clamp_min_14, reciprocal_13, mul_15, convert_element_type_31, log2_7, floor_7, exp2_7, t_2, output_2, mul_16, clamp_min_15, clamp_max_7, convert_element_type_33, clone, permute_6, full_default, _scaled_mm_3, output, silu, output_1, mul, view_11, convert_element_type_35, clamp_min_16, reciprocal_16, mul_19, convert_element_type_36, log2_8, floor_8, exp2_8, mul_20, clamp_min_17, clamp_max_8, convert_element_type_38, convert_element_type_39, clamp_min_18, reciprocal_17, mul_21, convert_element_type_40, log2_9, floor_9, exp2_9, convert_element_type_41, mul_22, clamp_min_19, clamp_max_9, convert_element_type_42, permute_7, clone_1, permute_9, clone_2, permute_10, _scaled_mm_4], Original ATen: [aten.view, aten.abs, aten.amax, aten._to_copy, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.t, aten.clone, aten.new_ones, aten._scaled_mm, aten.silu]
            stream0 = get_raw_stream(0)
            triton_red_fused__scaled_mm__to_copy_abs_amax_clamp_clone_exp2_floor_log2_mul_new_ones_reciprocal_silu_t_view_7.run(tangents_1, buf14, buf0, buf3, buf17, 256, 256, stream=stream0)
            buf4 = empty_strided_cuda((256, 768), (1, 256), torch.float8_e4m3fn)
            # Topologically Sorted Source Nodes: [view_9, convert_element_type_26, clamp_min_12, reciprocal_12, mul_13, convert_element_type_27, log2_6, floor_6, exp2_6, convert_element_type_28, mul_14, clamp_min_13, clamp_max_6, convert_element_type_29, convert_element_type_30, clamp_min_14, reciprocal_13, mul_15, convert_element_type_31, log2_7, floor_7, exp2_7, t_2, output_2, mul_16, clamp_min_15, clamp_max_7, convert_element_type_33, clone, permute_6, full_default, _scaled_mm_3], Original ATen: [aten.view, aten._to_copy, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.t, aten.clone, aten.new_ones, aten._scaled_mm]
            stream0 = get_raw_stream(0)
            triton_poi_fused__scaled_mm__to_copy_clamp_clone_exp2_floor_log2_mul_new_ones_reciprocal_t_view_8.run(primals_4, buf2, buf4, 256, 768, stream=stream0)
            del primals_4
            buf6 = empty_strided_cuda((256, 768), (768, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [view_9, convert_element_type_26, clamp_min_12, reciprocal_12, mul_13, convert_element_type_27, log2_6, floor_6, exp2_6, convert_element_type_28, mul_14, clamp_min_13, clamp_max_6, convert_element_type_29, convert_element_type_30, clamp_min_14, reciprocal_13, mul_15, convert_element_type_31, log2_7, floor_7, exp2_7, t_2, output_2, mul_16, clamp_min_15, clamp_max_7, convert_element_type_33, clone, permute_6, full_default, _scaled_mm_3], Original ATen: [aten.view, aten._to_copy, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.t, aten.clone, aten.new_ones, aten._scaled_mm]
            extern_kernels._scaled_mm(buf3, buf4, buf5, buf5, out_dtype=torch.bfloat16, use_fast_accum=False, out=buf6)
            buf9 = buf3; del buf3  # reuse
            buf33 = empty_strided_cuda((256, 256), (1, 256), torch.float8_e4m3fn)
            buf48 = empty_strided_cuda((256, 256), (1, 256), torch.float8_e4m3fn)
            # Topologically Sorted Source Nodes: [output, t_1, output_1, view_13, convert_element_type_46, view_15, convert_element_type_53, clamp_min_24, reciprocal_24, mul_33, convert_element_type_54, log2_12, floor_12, exp2_12, mul_34, clamp_min_25, clamp_max_12, convert_element_type_56, convert_element_type_57, clamp_min_26, reciprocal_25, mul_35, convert_element_type_58, log2_13, floor_13, exp2_13, convert_element_type_59, mul_36, clamp_min_27, clamp_max_13, convert_element_type_60, permute_18, clone_4, permute_20, clone_5, permute_21, _scaled_mm_6, convert_element_type_77, permute_29, clone_7, _scaled_mm_8], Original ATen: [aten.amax, aten._to_copy, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.view, aten.t, aten._scaled_mm, aten.clone]
            stream0 = get_raw_stream(0)
            triton_red_fused__scaled_mm__to_copy_amax_clamp_clone_exp2_floor_log2_mul_reciprocal_t_view_9.run(abs_1, primals_1, buf31, buf9, buf33, buf48, 256, 256, stream=stream0)
            del abs_1
            del primals_1
            buf10 = buf4; del buf4  # reuse
            buf26 = empty_strided_cuda((768, 256), (1, 768), torch.float8_e4m3fn)
            buf11 = empty_strided_cuda((1, 768), (768, 1), torch.float32)
            # Topologically Sorted Source Nodes: [output, t_1, output_1, view_13, convert_element_type_44, clamp_min_20, reciprocal_20, mul_27, convert_element_type_45, log2_10, floor_10, exp2_10, convert_element_type_46, mul_28, clamp_min_21, clamp_max_10, convert_element_type_47, convert_element_type_48, clamp_min_22, reciprocal_21, mul_29, convert_element_type_49, log2_11, floor_11, exp2_11, mul_30, clamp_min_23, clamp_max_11, convert_element_type_51, clone_3, permute_17, _scaled_mm_5], Original ATen: [aten._to_copy, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.view, aten.t, aten.amax, aten._scaled_mm, aten.clone]
            stream0 = get_raw_stream(0)
            triton_red_fused__scaled_mm__to_copy_amax_clamp_clone_exp2_floor_log2_mul_reciprocal_t_view_10.run(abs_4, primals_3, buf24, buf10, buf26, buf11, 768, 256, stream=stream0)
            del abs_4
            del primals_3
            buf12 = empty_strided_cuda((256, 768), (768, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [output, t_1, output_1], Original ATen: [aten._to_copy, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.view, aten.t, aten._scaled_mm]
            extern_kernels._scaled_mm(buf9, buf10, reciprocal_2, buf11, out_dtype=torch.bfloat16, use_fast_accum=True, out=buf12)
            del buf11
            del buf9
            del reciprocal_2
            buf21 = empty_strided_cuda((2, 128, 768), (98304, 768, 1), torch.bfloat16)
            buf36 = empty_strided_cuda((2, 128, 768), (98304, 768, 1), torch.float32)
            buf15 = reinterpret_tensor(buf1, (1, 768, 2), (1536, 1, 768), 0); del buf1  # reuse
            buf44 = empty_strided_cuda((1, 768, 2), (1536, 1, 768), torch.float32)
            buf28 = empty_strided_cuda((1, 768, 2), (1536, 1, 768), torch.float32)
            # Topologically Sorted Source Nodes: [convert_element_type_26, clamp_min_12, reciprocal_12, mul_13, convert_element_type_27, log2_6, floor_6, exp2_6, convert_element_type_30, clamp_min_14, reciprocal_13, mul_15, convert_element_type_31, log2_7, floor_7, exp2_7, permute_4, reciprocal_14, reciprocal_15, mul_17, mul_18, convert_element_type_34, output, silu, output_1, mul, view_11, abs_10, amax_9, view_12, mul_25, mul_26, view_13, abs_11, amax_12, convert_element_type_62, reciprocal_28, mul_39, mul_40, sub, mul_41, add_4, mul_42, convert_element_type_64, view_17, abs_15, amax_16], Original ATen: [aten._to_copy, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.t, aten.view, aten.silu, aten.abs, aten.amax, aten.silu_backward]
            stream0 = get_raw_stream(0)
            triton_red_fused__to_copy_abs_amax_clamp_exp2_floor_log2_mul_reciprocal_silu_silu_backward_t_view_11.run(buf6, buf0, buf2, _scaled_mm, buf12, buf21, buf36, buf15, buf44, buf28, 1536, 128, stream=stream0)
            del buf6
            buf16 = reinterpret_tensor(buf2, (1, 768), (768, 1), 0); del buf2  # reuse
            # Topologically Sorted Source Nodes: [output, silu, output_1, mul, view_11, abs_10, amax_9], Original ATen: [aten.view, aten.silu, aten.mul, aten.abs, aten.amax]
            stream0 = get_raw_stream(0)
            triton_per_fused_amax_6.run(buf15, buf16, 768, 2, stream=stream0)
            del buf15
            buf45 = empty_strided_cuda((1, 768), (768, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [output, silu, reciprocal_28, mul_39, sub, mul_41, add_4, mul_42, convert_element_type_64, view_17, abs_15, amax_16], Original ATen: [aten.view, aten.silu, aten.silu_backward, aten.abs, aten.amax]
            stream0 = get_raw_stream(0)
            triton_per_fused_amax_6.run(buf44, buf45, 768, 2, stream=stream0)
            del buf44
            buf29 = empty_strided_cuda((1, 768), (768, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [view_13, abs_11, amax_12], Original ATen: [aten.view, aten.abs, aten.amax]
            stream0 = get_raw_stream(0)
            triton_per_fused_amax_6.run(buf28, buf29, 768, 2, stream=stream0)
            del buf28
            buf42 = reinterpret_tensor(buf10, (768, 256), (1, 768), 0); del buf10  # reuse
            # Topologically Sorted Source Nodes: [convert_element_type_68, convert_element_type_69, clamp_min_30, reciprocal_30, mul_45, convert_element_type_70, log2_15, floor_15, exp2_15, t, output, mul_46, clamp_min_31, clamp_max_15, convert_element_type_72, clone_6, permute_28, _scaled_mm_7], Original ATen: [aten._to_copy, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.t, aten.clone, aten._scaled_mm]
            stream0 = get_raw_stream(0)
            triton_poi_fused__scaled_mm__to_copy_clamp_clone_exp2_floor_log2_mul_reciprocal_t_12.run(primals_2, buf40, buf42, 768, 256, stream=stream0)
            del primals_2
            buf22 = buf0; del buf0  # reuse
            buf25 = empty_strided_cuda((256, 768), (768, 1), torch.float8_e4m3fn)
            buf32 = empty_strided_cuda((768, 256), (256, 1), torch.float8_e4m3fn)
            # Topologically Sorted Source Nodes: [t_1, output_1, view_13, abs_11, amax_10, convert_element_type_44, clamp_min_20, reciprocal_20, mul_27, convert_element_type_45, log2_10, floor_10, exp2_10, convert_element_type_46, mul_28, clamp_min_21, clamp_max_10, convert_element_type_47, convert_element_type_48, clamp_min_22, reciprocal_21, mul_29, convert_element_type_49, log2_11, floor_11, exp2_11, mul_30, clamp_min_23, clamp_max_11, convert_element_type_51, clone_3, permute_17, _scaled_mm_5, view_15, convert_element_type_53, clamp_min_24, reciprocal_24, mul_33, convert_element_type_54, log2_12, floor_12, exp2_12, mul_34, clamp_min_25, clamp_max_12, convert_element_type_56, convert_element_type_57, clamp_min_26, reciprocal_25, mul_35, convert_element_type_58, log2_13, floor_13, exp2_13, convert_element_type_59, mul_36, clamp_min_27, clamp_max_13, convert_element_type_60, permute_18, clone_4, permute_20, clone_5, permute_21, _scaled_mm_6], Original ATen: [aten.t, aten._to_copy, aten.view, aten.abs, aten.amax, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.clone, aten._scaled_mm]
            stream0 = get_raw_stream(0)
            triton_red_fused__scaled_mm__to_copy_abs_amax_clamp_clone_exp2_floor_log2_mul_reciprocal_t_view_13.run(buf21, buf29, buf22, buf25, buf32, 256, 768, stream=stream0)
            del buf21
            buf27 = empty_strided_cuda((256, 256), (256, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [t_1, output_1, view_13, convert_element_type_44, clamp_min_20, reciprocal_20, mul_27, convert_element_type_45, log2_10, floor_10, exp2_10, convert_element_type_46, mul_28, clamp_min_21, clamp_max_10, convert_element_type_47, convert_element_type_48, clamp_min_22, reciprocal_21, mul_29, convert_element_type_49, log2_11, floor_11, exp2_11, mul_30, clamp_min_23, clamp_max_11, convert_element_type_51, clone_3, permute_17, _scaled_mm_5], Original ATen: [aten.t, aten._to_copy, aten.view, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.clone, aten._scaled_mm]
            extern_kernels._scaled_mm(buf25, buf26, buf5, buf5, out_dtype=torch.bfloat16, use_fast_accum=False, out=buf27)
            buf37 = empty_strided_cuda((256, 1), (1, 256), torch.bfloat16)
            buf18 = reinterpret_tensor(buf26, (256, 768), (1, 256), 0); del buf26  # reuse
            buf41 = buf25; del buf25  # reuse
            buf47 = empty_strided_cuda((768, 256), (256, 1), torch.float8_e4m3fn)
            # Topologically Sorted Source Nodes: [view_9, convert_element_type_28, output, silu, output_1, mul, view_11, convert_element_type_35, clamp_min_16, reciprocal_16, mul_19, convert_element_type_36, log2_8, floor_8, exp2_8, mul_20, clamp_min_17, clamp_max_8, convert_element_type_38, convert_element_type_39, clamp_min_18, reciprocal_17, mul_21, convert_element_type_40, log2_9, floor_9, exp2_9, convert_element_type_41, mul_22, clamp_min_19, clamp_max_9, convert_element_type_42, permute_7, clone_1, permute_9, clone_2, permute_10, _scaled_mm_4, view_15, convert_element_type_57, clamp_min_26, reciprocal_25, mul_35, convert_element_type_58, log2_13, floor_13, exp2_13, convert_element_type_59, mul_36, clamp_min_27, clamp_max_13, convert_element_type_60, permute_20, clone_5, permute_21, reciprocal_28, mul_39, sub, mul_41, add_4, mul_42, convert_element_type_64, view_17, abs_15, amax_14, convert_element_type_65, clamp_min_28, reciprocal_29, mul_43, convert_element_type_66, log2_14, floor_14, exp2_14, convert_element_type_67, mul_44, clamp_min_29, clamp_max_14, convert_element_type_68, convert_element_type_69, clamp_min_30, reciprocal_30, mul_45, convert_element_type_70, log2_15, floor_15, exp2_15, t, mul_46, clamp_min_31, clamp_max_15, convert_element_type_72, clone_6, permute_28, _scaled_mm_7, convert_element_type_74, clamp_min_32, reciprocal_33, mul_49, convert_element_type_75, log2_16, floor_16, exp2_16, mul_50, clamp_min_33, clamp_max_16, convert_element_type_77, permute_29, clone_7, _scaled_mm_8], Original ATen: [aten.view, aten._to_copy, aten.silu, aten.mul, aten.clamp, aten.reciprocal, aten.log2, aten.floor, aten.exp2, aten.t, aten.clone, aten._scaled_mm, aten.silu_backward, aten.abs, aten.amax]
            stream0 = get_raw_stream(0)
            triton_red_fused__scaled_mm__to_copy_abs_amax_clamp_clone_exp2_floor_log2_mul_reciprocal_silu_silu_backward_t_view_14.run(buf36, _scaled_mm, buf12, buf16, buf45, buf37, buf18, buf41, buf47, 256, 768, stream=stream0)
            del _scaled_mm
            del buf36
            buf43 = empty_strided_cuda((256, 256), (256, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [convert_element_type_68, convert_element_type_69, clamp_min_30, reciprocal_30, mul_45, convert_element_type_70, log2_15, floor_15, exp2_15, t, output, mul_46, clamp_min_31, clamp_max_15, convert_element_type_72, clone_6, permute_28, _scaled_mm_7], Original ATen: [aten._to_copy, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.t, aten.clone, aten._scaled_mm]
            extern_kernels._scaled_mm(buf41, buf42, buf5, buf5, out_dtype=torch.bfloat16, use_fast_accum=False, out=buf43)
            del buf41
            del buf42
            buf51 = reinterpret_tensor(buf27, (2, 128, 256), (32768, 256, 1), 0); del buf27  # reuse
            # Topologically Sorted Source Nodes: [convert_element_type_44, clamp_min_20, reciprocal_20, mul_27, convert_element_type_45, log2_10, floor_10, exp2_10, convert_element_type_48, clamp_min_22, reciprocal_21, mul_29, convert_element_type_49, log2_11, floor_11, exp2_11, permute_15, reciprocal_22, reciprocal_23, mul_31, mul_32, convert_element_type_52, view_16, add_2, convert_element_type_65, clamp_min_28, reciprocal_29, mul_43, convert_element_type_66, log2_14, floor_14, exp2_14, convert_element_type_69, clamp_min_30, reciprocal_30, mul_45, convert_element_type_70, log2_15, floor_15, exp2_15, permute_26, reciprocal_31, reciprocal_32, mul_47, mul_48, convert_element_type_73, view_20, add_5], Original ATen: [aten._to_copy, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.t, aten.view, aten.add]
            stream0 = get_raw_stream(0)
            triton_poi_fused__to_copy_add_clamp_exp2_floor_log2_mul_reciprocal_t_view_15.run(buf51, tangents_1, buf22, buf24, buf43, buf37, buf40, 512, 128, stream=stream0)
            del buf22
            del buf24
            del buf37
            del buf40
            del buf43
            del tangents_1
            buf19 = buf12; del buf12  # reuse
            # Topologically Sorted Source Nodes: [view_9, convert_element_type_28, output, silu, output_1, mul, view_11, convert_element_type_35, clamp_min_16, reciprocal_16, mul_19, convert_element_type_36, log2_8, floor_8, exp2_8, mul_20, clamp_min_17, clamp_max_8, convert_element_type_38, convert_element_type_39, clamp_min_18, reciprocal_17, mul_21, convert_element_type_40, log2_9, floor_9, exp2_9, convert_element_type_41, mul_22, clamp_min_19, clamp_max_9, convert_element_type_42, permute_7, clone_1, permute_9, clone_2, permute_10, _scaled_mm_4], Original ATen: [aten.view, aten._to_copy, aten.silu, aten.mul, aten.clamp, aten.reciprocal, aten.log2, aten.floor, aten.exp2, aten.t, aten.clone, aten._scaled_mm]
            extern_kernels._scaled_mm(buf17, buf18, buf5, buf5, out_dtype=torch.bfloat16, use_fast_accum=False, out=buf19)
            del buf17
            del buf18
            buf34 = empty_strided_cuda((768, 256), (256, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [view_13, convert_element_type_46, view_15, convert_element_type_53, clamp_min_24, reciprocal_24, mul_33, convert_element_type_54, log2_12, floor_12, exp2_12, mul_34, clamp_min_25, clamp_max_12, convert_element_type_56, convert_element_type_57, clamp_min_26, reciprocal_25, mul_35, convert_element_type_58, log2_13, floor_13, exp2_13, convert_element_type_59, mul_36, clamp_min_27, clamp_max_13, convert_element_type_60, permute_18, clone_4, permute_20, clone_5, permute_21, _scaled_mm_6], Original ATen: [aten.view, aten._to_copy, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.t, aten.clone, aten._scaled_mm]
            extern_kernels._scaled_mm(buf32, buf33, buf5, buf5, out_dtype=torch.bfloat16, use_fast_accum=False, out=buf34)
            del buf32
            del buf33
            buf49 = empty_strided_cuda((768, 256), (256, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [view_15, convert_element_type_57, clamp_min_26, reciprocal_25, mul_35, convert_element_type_58, log2_13, floor_13, exp2_13, convert_element_type_59, mul_36, clamp_min_27, clamp_max_13, convert_element_type_60, permute_20, clone_5, permute_21, convert_element_type_77, permute_29, clone_7, _scaled_mm_8], Original ATen: [aten.view, aten._to_copy, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.t, aten.clone, aten._scaled_mm]
            extern_kernels._scaled_mm(buf47, buf48, buf5, buf5, out_dtype=torch.bfloat16, use_fast_accum=False, out=buf49)
            del buf47
            del buf48
            del buf5
            buf20 = buf19; del buf19  # reuse
            # Topologically Sorted Source Nodes: [convert_element_type_35, clamp_min_16, reciprocal_16, mul_19, convert_element_type_36, log2_8, floor_8, exp2_8, convert_element_type_39, clamp_min_18, reciprocal_17, mul_21, convert_element_type_40, log2_9, floor_9, exp2_9, permute_8, reciprocal_18, reciprocal_19, mul_23, mul_24, convert_element_type_43], Original ATen: [aten._to_copy, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.t]
            stream0 = get_raw_stream(0)
            triton_poi_fused__to_copy_clamp_exp2_floor_log2_mul_reciprocal_t_16.run(buf20, buf14, buf16, 196608, stream=stream0)
            del buf14
            del buf16
            buf35 = buf34; del buf34  # reuse
            # Topologically Sorted Source Nodes: [convert_element_type_53, clamp_min_24, reciprocal_24, mul_33, convert_element_type_54, log2_12, floor_12, exp2_12, convert_element_type_57, clamp_min_26, reciprocal_25, mul_35, convert_element_type_58, log2_13, floor_13, exp2_13, permute_19, reciprocal_26, reciprocal_27, mul_37, mul_38, convert_element_type_61], Original ATen: [aten._to_copy, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.t]
            stream0 = get_raw_stream(0)
            triton_poi_fused__to_copy_clamp_exp2_floor_log2_mul_reciprocal_t_17.run(buf35, buf29, buf31, 196608, stream=stream0)
            del buf29
            buf50 = buf49; del buf49  # reuse
            # Topologically Sorted Source Nodes: [convert_element_type_57, clamp_min_26, reciprocal_25, mul_35, convert_element_type_58, log2_13, floor_13, exp2_13, reciprocal_27, convert_element_type_74, clamp_min_32, reciprocal_33, mul_49, convert_element_type_75, log2_16, floor_16, exp2_16, permute_30, reciprocal_35, mul_53, mul_54, convert_element_type_82], Original ATen: [aten._to_copy, aten.clamp, aten.reciprocal, aten.mul, aten.log2, aten.floor, aten.exp2, aten.t]
            stream0 = get_raw_stream(0)
            triton_poi_fused__to_copy_clamp_exp2_floor_log2_mul_reciprocal_t_17.run(buf50, buf45, buf31, 196608, stream=stream0)
            del buf31
            del buf45
        return (buf51, buf50, buf35, buf20, )

runner = Runner(partitions=[])
call = runner.call
recursively_apply_fns = runner.recursively_apply_fns


def get_args():
    from torch._dynamo.testing import rand_strided
    primals_1 = rand_strided((2, 128, 256), (32768, 256, 1), device='cuda:0', dtype=torch.bfloat16)
    primals_2 = rand_strided((768, 256), (256, 1), device='cuda:0', dtype=torch.bfloat16)
    primals_3 = rand_strided((768, 256), (256, 1), device='cuda:0', dtype=torch.bfloat16)
    primals_4 = rand_strided((256, 768), (768, 1), device='cuda:0', dtype=torch.bfloat16)
    abs_1 = rand_strided((2, 128, 256), (32768, 256, 1), device='cuda:0', dtype=torch.bfloat16)
    abs_2 = rand_strided((256, 768), (1, 256), device='cuda:0', dtype=torch.bfloat16)
    reciprocal_2 = rand_strided((256, 1), (1, 1), device='cuda:0', dtype=torch.float32)
    _scaled_mm = rand_strided((256, 768), (768, 1), device='cuda:0', dtype=torch.bfloat16)
    abs_4 = rand_strided((256, 768), (1, 256), device='cuda:0', dtype=torch.bfloat16)
    abs_6 = rand_strided((768, 256), (1, 768), device='cuda:0', dtype=torch.bfloat16)
    tangents_1 = rand_strided((2, 128, 256), (32768, 256, 1), device='cuda:0', dtype=torch.bfloat16)
    return [primals_1, primals_2, primals_3, primals_4, abs_1, abs_2, reciprocal_2, _scaled_mm, abs_4, abs_6, tangents_1]


def benchmark_compiled_module(args, times=10, repeat=10):
    from torch._inductor.utils import print_performance
    fn = lambda: call(list(args))
    return print_performance(fn, times=times, repeat=repeat)


if __name__ == "__main__":
    from torch._inductor.wrapper_benchmark import compiled_module_main
    args = get_args()
    compiled_module_main('None', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))
