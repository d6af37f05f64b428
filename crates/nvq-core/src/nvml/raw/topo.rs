//! The topology through nvml-wrapper (`topo`): how two GPUs connect, their
//! peer-to-peer status, a GPU's CPU and memory affinity and NUMA node, and
//! the GPUs near a GPU or a CPU.

use super::{wrapped, Dev};
use crate::nvml::{NvmlCode, Session};
use nvml_wrapper::enum_wrappers::device::{P2pCapabilitiesIndex, P2pStatus, TopologyLevel};
use std::os::raw::c_ulong;

/// The closest common ancestor of GPUs `a` and `b` in the PCI tree
/// (`nvmlDeviceGetTopologyCommonAncestor`).
pub fn common_ancestor(a: &Dev<'_>, b: &Dev<'_>) -> Result<TopologyLevel, NvmlCode> {
    let (a, b) = (super::wrapper(a)?, super::wrapper(b)?);
    a.topology_common_ancestor(b).map_err(NvmlCode::from)
}

/// Whether GPU `a` can reach GPU `b` peer to peer for `index` (`nvmlDeviceGetP2PStatus`).
pub fn p2p_status(
    a: &Dev<'_>,
    b: &Dev<'_>,
    index: P2pCapabilitiesIndex,
) -> Result<P2pStatus, NvmlCode> {
    let (a, b) = (super::wrapper(a)?, super::wrapper(b)?);
    a.p2p_status(&b, index).map_err(NvmlCode::from)
}

/// The CPUs a GPU is near, as `words` words of NVML's bit mask
/// (`nvmlDeviceGetCpuAffinity`).
pub fn cpu_affinity(c: &Dev<'_>, words: usize) -> Result<Vec<c_ulong>, NvmlCode> {
    wrapped(c, |d| d.cpu_affinity(words))
}

/// The NUMA nodes a GPU's memory is near within `scope`, as `words` words of
/// NVML's bit mask (`nvmlDeviceGetMemoryAffinity`).
pub fn memory_affinity(c: &Dev<'_>, words: usize, scope: u32) -> Result<Vec<c_ulong>, NvmlCode> {
    wrapped(c, |d| d.memory_affinity(words, scope))
}

/// The GPU's own NUMA node (`nvmlDeviceGetNumaNodeId`).
pub fn numa_node_id(c: &Dev<'_>) -> Result<u32, NvmlCode> {
    wrapped(c, |d| d.numa_node_id())
}

/// The GPUs at `level` from GPU `c`, or nearer (`nvmlDeviceGetTopologyNearestGpus`).
pub fn nearest_gpus<'s>(c: &Dev<'s>, level: TopologyLevel) -> Result<Vec<Dev<'s>>, NvmlCode> {
    let found = wrapped(c, |d| d.topology_nearest_gpus(level))?;
    Ok(found.iter().map(|d| Dev::of(c.session, d)).collect())
}

/// The GPUs with an affinity to CPU `cpu` (`nvmlSystemGetTopologyGpuSet`).
pub fn cpu_gpus(session: &Session, cpu: u32) -> Result<Vec<Dev<'_>>, NvmlCode> {
    let found = session
        .nvml()
        .topology_gpu_set(cpu)
        .map_err(NvmlCode::from)?;
    Ok(found.iter().map(|d| Dev::of(session, d)).collect())
}
