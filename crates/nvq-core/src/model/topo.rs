//! The topology matrix (`topo -m`): how each pair of devices (GPUs, then
//! NICs) is connected, and which CPUs and NUMA nodes are near each GPU.

use super::NvmlCode;

/// The connection between two devices, as nvidia-smi names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// The device itself (`X`).
    Itself,
    /// A bonded set of this many NVLinks (`NV#`).
    NvLink(u32),
    /// At most one PCIe bridge (`PIX`).
    Pix,
    /// Several PCIe bridges, no host bridge (`PXB`).
    Pxb,
    /// Through a PCIe host bridge (`PHB`).
    Phb,
    /// Between host bridges of one NUMA node (`NODE`).
    Node,
    /// Across NUMA nodes (`SYS`).
    Sys,
    /// The level could not be read.
    Unknown(NvmlCode),
}

impl Link {
    /// nvidia-smi's cell text, without the padding of `X`.
    pub fn label(&self) -> String {
        match self {
            Link::Itself => "X".into(),
            Link::NvLink(n) => format!("NV{n}"),
            Link::Pix => "PIX".into(),
            Link::Pxb => "PXB".into(),
            Link::Phb => "PHB".into(),
            Link::Node => "NODE".into(),
            Link::Sys => "SYS".into(),
            Link::Unknown(_) => "N/A".into(),
        }
    }

    /// How close the connection is: smaller is closer (NVLink first, more
    /// links closer; `None` for the device itself or an unknown level).
    pub fn rank(&self) -> Option<(u32, u32)> {
        match self {
            Link::NvLink(n) => Some((0, u32::MAX - n)),
            Link::Pix => Some((1, 0)),
            Link::Pxb => Some((2, 0)),
            Link::Phb => Some((3, 0)),
            Link::Node => Some((4, 0)),
            Link::Sys => Some((5, 0)),
            Link::Itself | Link::Unknown(_) => None,
        }
    }
}

/// What is near one GPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuPlace {
    /// The GPU's NVML index.
    pub index: u32,
    /// CPU numbers (`nvmlDeviceGetCpuAffinity`).
    pub cpus: Result<Vec<u32>, NvmlCode>,
    /// NUMA nodes of its nearest memory (`nvmlDeviceGetMemoryAffinity`).
    pub numa_nodes: Result<Vec<u32>, NvmlCode>,
    /// The GPU's own NUMA node (set for GPUs whose memory is a NUMA node).
    pub gpu_numa_id: Result<u32, NvmlCode>,
}

/// A network device seen by the kernel (`/sys/class/infiniband`, `/sys/class/net`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nic {
    /// Its name, e.g. `mlx5_0`.
    pub name: String,
}

/// The whole matrix: `links[i][j]` connects device `i` and device `j`,
/// where devices are the GPUs in order, then the NICs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopoMatrix {
    /// The GPUs, in matrix order, with what is near each.
    pub gpus: Vec<GpuPlace>,
    /// The NICs, in matrix order after the GPUs.
    pub nics: Vec<Nic>,
    /// The square matrix of connections, rows and columns both GPUs then NICs.
    pub links: Vec<Vec<Link>>,
}

/// A pair's peer-to-peer status (`nvmlGpuP2PStatus_t`), for `topo -p2p`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum P2p {
    /// The GPU itself (`X`).
    Itself,
    /// The NVML status number: 0 OK, 1 chipset, 2 GPU, 3 topology, 4 regkey,
    /// 5 not supported, other: unknown.
    Status(u32),
    /// The call failed.
    Failed(NvmlCode),
}

impl P2p {
    /// nvidia-smi's cell text.
    pub fn label(&self) -> &'static str {
        match self {
            P2p::Itself => "X",
            P2p::Status(0) => "OK",
            P2p::Status(1) => "CNS",
            P2p::Status(2) => "GNS",
            P2p::Status(3) => "TNS",
            P2p::Status(4) => "DR",
            P2p::Status(5) => "NS",
            P2p::Status(_) => "U",
            P2p::Failed(_) => "N/A",
        }
    }
}

/// `topo -p2p`: the status of each ordered pair of GPUs for one capability.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct P2pMatrix {
    /// The GPUs' NVML indices, in matrix order.
    pub gpus: Vec<u32>,
    /// `status[i][j]`: the status from `gpus[i]` to `gpus[j]`.
    pub status: Vec<Vec<P2p>>,
}

/// A PCIe traversal level, as `topo -n` numbers them (0 to 5) and NVML's
/// `nvmlGpuTopologyLevel_t` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// 0: a single PCIe switch on a dual-GPU board.
    Internal,
    /// 1: a single PCIe switch.
    Single,
    /// 2: several PCIe switches.
    Multiple,
    /// 3: a PCIe host bridge.
    HostBridge,
    /// 4: the link between host bridges inside the CPU (one NUMA node).
    Node,
    /// 5: the SMP link between NUMA nodes.
    System,
}

impl Level {
    /// Every level, by `topo -n`'s number.
    pub const ALL: [Level; 6] = [
        Level::Internal,
        Level::Single,
        Level::Multiple,
        Level::HostBridge,
        Level::Node,
        Level::System,
    ];

    /// `topo -n`'s number of the level.
    pub fn number(self) -> u32 {
        self as u32
    }

    /// nvidia-smi's words for the level, as its `topo -h` lists them and as
    /// `topo -p` ends its sentence ("multiple PCIe switches" is seen in a
    /// real output; the others are the help's words, unverified in output).
    pub fn words(self) -> &'static str {
        match self {
            Level::Internal => "a single PCIe switch on a dual GPU board",
            Level::Single => "a single PCIe switch",
            Level::Multiple => "multiple PCIe switches",
            Level::HostBridge => "a PCIe host bridge",
            Level::Node => "an on-CPU interconnect link between PCIe host bridges",
            Level::System => "an SMP interconnect link between NUMA nodes",
        }
    }

    /// A short name (NVML's, in snake case), for JSON.
    pub fn name(self) -> &'static str {
        match self {
            Level::Internal => "internal",
            Level::Single => "single",
            Level::Multiple => "multiple",
            Level::HostBridge => "host_bridge",
            Level::Node => "node",
            Level::System => "system",
        }
    }

    /// The matrix's name for a connection at this level.
    pub fn link(self) -> Link {
        match self {
            Level::Internal | Level::Single => Link::Pix,
            Level::Multiple => Link::Pxb,
            Level::HostBridge => Link::Phb,
            Level::Node => Link::Node,
            Level::System => Link::Sys,
        }
    }
}

/// `topo -n LEVEL -i ID`: the GPUs at that level from one GPU, or nearer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nearest {
    /// The GPU asked about (`-i`), by NVML index.
    pub gpu: u32,
    /// The level asked for (`-n`).
    pub level: Level,
    /// The other GPUs' indices (`nvmlDeviceGetTopologyNearestGpus`), or the code it returned.
    pub gpus: Result<Vec<u32>, NvmlCode>,
}

/// `topo -p -i ID1,ID2`: the most direct PCIe path between two GPUs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuPath {
    /// The first GPU's NVML index.
    pub from: u32,
    /// The second GPU's NVML index.
    pub to: u32,
    /// The level of their common ancestor (`nvmlDeviceGetTopologyCommonAncestor`), or the code it returned.
    pub level: Result<Level, NvmlCode>,
}

/// `topo -c CPU`: the GPUs with an affinity to one CPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuGpus {
    /// The CPU number asked about.
    pub cpu: u32,
    /// The NVML indices of the GPUs near it (`nvmlSystemGetTopologyGpuSet`), or the code it returned.
    pub gpus: Result<Vec<u32>, NvmlCode>,
}

/// A sorted list of numbers as Linux writes CPU lists: `0-23,48-71`.
pub fn id_ranges(ids: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < ids.len() {
        let start = ids[i];
        let mut end = start;
        while i + 1 < ids.len() && ids[i + 1] == end.saturating_add(1) {
            i += 1;
            end = ids[i];
        }
        out.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    out.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert_eq!(id_ranges(&[]), "");
        assert_eq!(id_ranges(&[0]), "0");
        assert_eq!(id_ranges(&[0, 1, 2, 5, 7, 8]), "0-2,5,7-8");
    }

    #[test]
    fn nvlink_beats_pcie_and_more_links_beat_fewer() {
        assert!(Link::NvLink(18).rank() < Link::NvLink(2).rank());
        assert!(Link::NvLink(1).rank() < Link::Pix.rank());
        assert!(Link::Node.rank() < Link::Sys.rank());
        assert_eq!(Link::Itself.rank(), None);
    }
}
