//! `topo -m`: the topology matrix, read through NVML (GPU to GPU: NVLink
//! bonds, else the common PCI ancestor; CPU and memory affinity; the GPU's
//! NUMA node) and through the kernel's view of PCI (`/sys`) for NICs.
//!
//! NICs are the RDMA devices of `/sys/class/infiniband` (what nvidia-smi
//! lists as `NIC#`: `mlx5_0`, ...). Their distance to a GPU or to another NIC
//! comes from the two devices' PCI paths under `/sys/devices`: a different
//! root (host bridge) is `SYS` across NUMA nodes and `NODE` within one; the
//! same root with no shared bridge is `PHB`; a shared bridge is `PIX` when
//! each device sits at most two levels below the last shared one (the
//! downstream port of one switch, then the device), else `PXB`.
//! `NVQ_SYSFS_ROOT` names a directory that stands for `/sys` (tests).

use crate::model::topo::{
    CpuGpus, GpuPath, GpuPlace, Level, Link, Nearest, Nic, P2p, P2pMatrix, TopoMatrix,
};
use crate::model::NvmlCode;
use crate::nvml::raw::{self, Dev};
use crate::nvml::Session;
use crate::source::gpu::GpuCtx;
use nvml_wrapper::enum_wrappers::device::{P2pCapabilitiesIndex, P2pStatus, TopologyLevel};
use std::path::{Path, PathBuf};

/// The environment variable that moves `/sys` (for tests).
pub const SYSFS_ROOT_ENV: &str = "NVQ_SYSFS_ROOT";

/// Words of the CPU and node masks asked for: 4096 CPUs or nodes.
const MASK_WORDS: usize = 64;

/// The matrix of the selected GPUs and every NIC (`pci_only`: NVLink is
/// not read, so every GPU pair shows its PCIe connection, as `-mp`).
pub fn matrix(session: &Session, gpus: &[u32], pci_only: bool) -> TopoMatrix {
    let sysfs = sysfs_root();
    // The GPU count is no part of the matrix.
    let contexts: Vec<GpuCtx<'_>> = gpus.iter().map(|&i| GpuCtx::new(session, i, 0)).collect();
    let devices: Vec<Dev<'_>> = contexts.iter().map(GpuCtx::raw).collect();
    let bus_ids: Vec<Option<String>> = contexts
        .iter()
        .map(|c| c.bus_id().ok().map(str::to_ascii_uppercase))
        .collect();
    let bonds: Vec<Bonds> = devices
        .iter()
        .map(|d| nvlink_bonds((!pci_only && d.handle().is_ok()).then_some(d), &bus_ids))
        .collect();
    let nics = nics(&sysfs);
    let gpu_paths: Vec<Option<PciPlace>> = bus_ids
        .iter()
        .map(|b| b.as_deref().and_then(|b| PciPlace::of_gpu(&sysfs, b)))
        .collect();
    let n = gpus.len() + nics.len();
    let mut links = vec![vec![Link::Itself; n]; n];
    for i in 0..n {
        for j in 0..n {
            if i == j {
                continue;
            }
            links[i][j] = if i < gpus.len() && j < gpus.len() {
                gpu_link(&devices[i], &devices[j], bonded(&bonds, i, j))
            } else {
                let place = |k: usize| {
                    if k < gpus.len() {
                        gpu_paths[k].as_ref()
                    } else {
                        Some(&nics[k - gpus.len()].1)
                    }
                };
                match (place(i), place(j)) {
                    (Some(a), Some(b)) => a.link(b),
                    _ => Link::Unknown(NvmlCode(3)),
                }
            };
        }
    }
    TopoMatrix {
        gpus: gpus
            .iter()
            .zip(&devices)
            .map(|(&index, d)| place(index, d))
            .collect(),
        nics: nics.into_iter().map(|(nic, _)| nic).collect(),
        links,
    }
}

/// `topo -p2p`: every ordered pair's status for one capability (`r`, `w`,
/// `n`, `a` or `p`: read, write, NVLink, atomics, PCIe).
pub fn p2p(session: &Session, gpus: &[u32], capability: char) -> P2pMatrix {
    let index = match capability {
        'r' => P2pCapabilitiesIndex::Read,
        'w' => P2pCapabilitiesIndex::Write,
        'n' => P2pCapabilitiesIndex::NvLink,
        'a' => P2pCapabilitiesIndex::Atomics,
        _ => P2pCapabilitiesIndex::Prop,
    };
    let devices: Vec<Dev<'_>> = gpus.iter().map(|&i| Dev::by_index(session, i)).collect();
    let status = (0..gpus.len())
        .map(|i| {
            (0..gpus.len())
                .map(
                    |j| match (i != j).then(|| raw::p2p_status(&devices[i], &devices[j], index)) {
                        None => P2p::Itself,
                        Some(Ok(s)) => P2p::Status(match s {
                            P2pStatus::Ok => 0,
                            P2pStatus::ChipsetNotSupported => 1,
                            P2pStatus::GpuNotSupported => 2,
                            P2pStatus::IohTopologyNotSupported => 3,
                            P2pStatus::DisabledByRegkey => 4,
                            P2pStatus::NotSupported => 5,
                            P2pStatus::Unknown => 6,
                        }),
                        Some(Err(code)) => P2p::Failed(code),
                    },
                )
                .collect()
        })
        .collect();
    P2pMatrix {
        gpus: gpus.to_vec(),
        status,
    }
}

fn gpu_link(a: &Dev<'_>, b: &Dev<'_>, bonded: u32) -> Link {
    if bonded > 0 {
        return Link::NvLink(bonded);
    }
    match raw::common_ancestor(a, b) {
        Ok(TopologyLevel::Internal | TopologyLevel::Single) => Link::Pix,
        Ok(TopologyLevel::Multiple) => Link::Pxb,
        Ok(TopologyLevel::HostBridge) => Link::Phb,
        Ok(TopologyLevel::Node) => Link::Node,
        Ok(TopologyLevel::System) => Link::Sys,
        Err(code) => Link::Unknown(code),
    }
}

/// Active NVLinks from one GPU: how many reach each GPU directly (by bus
/// id), and how many reach an NVSwitch.
struct Bonds {
    direct: Vec<u32>,
    switched: u32,
}

/// NVSwitch in `nvmlIntNvLinkDeviceType_t`.
const REMOTE_SWITCH: u32 = 2;

/// Links are read until NVML says there are no more; a GPU without NVLink
/// has none.
fn nvlink_bonds(d: Option<&Dev<'_>>, bus_ids: &[Option<String>]) -> Bonds {
    let mut b = Bonds {
        direct: vec![0; bus_ids.len()],
        switched: 0,
    };
    let Some(d) = d else { return b };
    for link in 0..nvml_wrapper_sys::bindings::NVML_NVLINK_MAX_LINKS {
        match raw::link_active(d, link) {
            Ok(true) => {}
            Ok(false) => continue,
            Err(_) => break,
        }
        if raw::nvlink_remote_device_type(d, link) == Ok(REMOTE_SWITCH) {
            b.switched += 1;
            continue;
        }
        let Ok(remote) = raw::link_remote_bus_id(d, link) else {
            continue;
        };
        let remote = remote.to_ascii_uppercase();
        if let Some(k) = bus_ids
            .iter()
            .position(|x| x.as_deref() == Some(remote.as_str()))
        {
            b.direct[k] += 1;
        }
    }
    b
}

/// NVLinks between GPUs `i` and `j`: direct ones (as either side counts
/// them, so that a GPU whose NVLink calls fail still shows its peer's
/// links), plus, when both reach NVSwitches, the smaller of their switched
/// counts (every GPU on the switches reaches every other).
fn bonded(bonds: &[Bonds], i: usize, j: usize) -> u32 {
    let via_switch = bonds[i].switched.min(bonds[j].switched);
    bonds[i].direct[j].max(bonds[j].direct[i]) + via_switch
}

/// The members of an NVML bit mask.
fn mask_members(words: &[std::os::raw::c_ulong]) -> Vec<u32> {
    let bits = std::os::raw::c_ulong::BITS;
    let mut out = Vec::new();
    for (w, word) in words.iter().enumerate() {
        for b in 0..bits {
            if word >> b & 1 == 1 {
                out.push(w as u32 * bits + b);
            }
        }
    }
    out
}

fn place(index: u32, d: &Dev<'_>) -> GpuPlace {
    let scope = nvml_wrapper_sys::bindings::NVML_AFFINITY_SCOPE_NODE;
    GpuPlace {
        index,
        cpus: raw::cpu_affinity(d, MASK_WORDS).map(|w| mask_members(&w)),
        numa_nodes: raw::memory_affinity(d, MASK_WORDS, scope).map(|w| mask_members(&w)),
        gpu_numa_id: raw::numa_node_id(d),
    }
}

/// The directory that stands for `/sys`.
fn sysfs_root() -> PathBuf {
    std::env::var_os(SYSFS_ROOT_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/sys"))
}

/// A PCI device as the kernel places it: the components of its path under
/// `devices/` (the root first) and its NUMA node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PciPlace {
    /// The components of the device's path under `/sys/devices/`, the root complex first.
    pub path: Vec<String>,
    /// The NUMA node from sysfs `numa_node` (-1: none known); `None` when it cannot be read.
    pub numa: Option<i64>,
}

impl PciPlace {
    /// The place of a device directory (a link such as `bus/pci/devices/X`
    /// or `class/infiniband/mlx5_0/device`).
    fn of(sysfs: &Path, dev: &Path) -> Option<PciPlace> {
        let real = dev.canonicalize().ok()?;
        let base = sysfs.canonicalize().ok()?.join("devices");
        let rel = real.strip_prefix(&base).ok()?;
        let path: Vec<String> = rel
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        let numa = std::fs::read_to_string(real.join("numa_node"))
            .ok()
            .and_then(|s| s.trim().parse().ok());
        (path.len() >= 2).then_some(PciPlace { path, numa })
    }

    /// A GPU by NVML's bus id (`00000000:18:00.0`: sysfs spells the domain
    /// with four digits, in lower case).
    fn of_gpu(sysfs: &Path, bus_id: &str) -> Option<PciPlace> {
        let (domain, rest) = bus_id.split_once(':')?;
        let domain = u32::from_str_radix(domain, 16).ok()?;
        let name = format!("{domain:04x}:{}", rest.to_ascii_lowercase());
        PciPlace::of(sysfs, &sysfs.join("bus/pci/devices").join(name))
    }

    /// The connection between two devices (see the module's description).
    pub fn link(&self, other: &PciPlace) -> Link {
        if self.path[0] != other.path[0] {
            // A NUMA node the kernel does not know (-1) counts as node 0.
            let node = |p: &PciPlace| p.numa.unwrap_or(0).max(0);
            return if node(self) == node(other) {
                Link::Node
            } else {
                Link::Sys
            };
        }
        // The last component is the device itself; the ones between the
        // root and it are bridges.
        let (a, b) = (&self.path[1..], &other.path[1..]);
        let shared = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        if shared == 0 {
            Link::Phb
        } else if a.len() - shared <= 2 && b.len() - shared <= 2 {
            Link::Pix
        } else {
            Link::Pxb
        }
    }
}

/// The RDMA devices of `class/infiniband`, in natural order (`mlx5_2`
/// before `mlx5_10`), with their PCI places. A device without one is left out.
fn nics(sysfs: &Path) -> Vec<(Nic, PciPlace)> {
    let Ok(dir) = std::fs::read_dir(sysfs.join("class/infiniband")) else {
        return Vec::new();
    };
    let mut out: Vec<(Nic, PciPlace)> = dir
        .filter_map(|e| {
            let e = e.ok()?;
            let name = e.file_name().to_string_lossy().into_owned();
            let place = PciPlace::of(sysfs, &e.path().join("device"))?;
            Some((Nic { name }, place))
        })
        .collect();
    out.sort_by_key(|(nic, _)| natural_key(&nic.name));
    out
}

/// `mlx5_10` → ("mlx5_", 10): names compare by prefix, then number.
fn natural_key(name: &str) -> (String, u64) {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (stem, num) = name.split_at(name.len() - digits);
    (stem.to_string(), num.parse().unwrap_or(0))
}

// ---- `topo -n`, `-p`, `-c`: one NVML question each.

/// NVML's level for ours.
fn nvml_level(l: Level) -> TopologyLevel {
    match l {
        Level::Internal => TopologyLevel::Internal,
        Level::Single => TopologyLevel::Single,
        Level::Multiple => TopologyLevel::Multiple,
        Level::HostBridge => TopologyLevel::HostBridge,
        Level::Node => TopologyLevel::Node,
        Level::System => TopologyLevel::System,
    }
}

/// Indices of devices NVML handed back, in index order: each handle is
/// matched against the handles by index, so that no call is made on the
/// devices themselves (a lost GPU still has its index).
fn indices(session: &Session, devices: Vec<Dev<'_>>) -> Result<Vec<u32>, NvmlCode> {
    let count = session.device_count()?;
    let known: Vec<(u32, usize)> = (0..count)
        .filter_map(|i| Some((i, Dev::by_index(session, i).handle().ok()? as usize)))
        .collect();
    let mut out = Vec::with_capacity(devices.len());
    for d in &devices {
        let h = d.handle()? as usize;
        match known.iter().find(|(_, k)| *k == h) {
            Some((i, _)) => out.push(*i),
            None => out.push(raw::index(d)?),
        }
    }
    out.sort_unstable();
    Ok(out)
}

/// `topo -n`: the GPUs at `level` from `gpu`, or nearer
/// (`nvmlDeviceGetTopologyNearestGpus`).
pub fn nearest(session: &Session, gpu: u32, level: Level) -> Nearest {
    let gpus = raw::nearest_gpus(&Dev::by_index(session, gpu), nvml_level(level))
        .and_then(|v| indices(session, v));
    Nearest { gpu, level, gpus }
}

/// `topo -p`: the most direct PCIe path between two GPUs
/// (`nvmlDeviceGetTopologyCommonAncestor`).
pub fn path(session: &Session, from: u32, to: u32) -> GpuPath {
    let (a, b) = (Dev::by_index(session, from), Dev::by_index(session, to));
    let level = raw::common_ancestor(&a, &b).map(|l| match l {
        TopologyLevel::Internal => Level::Internal,
        TopologyLevel::Single => Level::Single,
        TopologyLevel::Multiple => Level::Multiple,
        TopologyLevel::HostBridge => Level::HostBridge,
        TopologyLevel::Node => Level::Node,
        TopologyLevel::System => Level::System,
    });
    GpuPath { from, to, level }
}

/// `topo -c`: the GPUs with an affinity to `cpu` (`nvmlSystemGetTopologyGpuSet`).
pub fn cpu_gpus(session: &Session, cpu: u32) -> CpuGpus {
    let gpus = raw::cpu_gpus(session, cpu).and_then(|v| indices(session, v));
    CpuGpus { cpu, gpus }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(path: &str, numa: i64) -> PciPlace {
        PciPlace {
            path: path.split('/').map(String::from).collect(),
            numa: Some(numa),
        }
    }

    #[test]
    fn pci_levels() {
        let gpu = p("pci0000:00/00:01.0/01:00.0/02:00.0/03:00.0", 0);
        let same_switch = p("pci0000:00/00:01.0/01:00.0/02:01.0/04:00.0", 0);
        let nested = p(
            "pci0000:00/00:01.0/01:00.0/02:02.0/05:00.0/06:00.0/07:00.0",
            0,
        );
        let other_port = p("pci0000:00/00:02.0/08:00.0", 0);
        let other_root = p("pci0000:40/40:01.0/41:00.0", 0);
        let other_node = p("pci0000:80/80:01.0/81:00.0", 1);
        assert_eq!(gpu.link(&same_switch), Link::Pix);
        assert_eq!(gpu.link(&nested), Link::Pxb);
        assert_eq!(gpu.link(&other_port), Link::Phb);
        assert_eq!(gpu.link(&other_root), Link::Node);
        assert_eq!(gpu.link(&other_node), Link::Sys);
    }

    #[test]
    fn natural_order() {
        let mut v = vec!["mlx5_10", "mlx5_2", "mlx5_0"];
        v.sort_by_key(|n| natural_key(n));
        assert_eq!(v, ["mlx5_0", "mlx5_2", "mlx5_10"]);
    }

    #[test]
    fn masks() {
        assert_eq!(
            mask_members(&[0b1011, 1]),
            [0, 1, 3, std::os::raw::c_ulong::BITS]
        );
    }
}
