#![allow(missing_docs)]
//! MIG's GPU and compute instances and their profiles, as `mig -lgi`, `-lci`,
//! `-lgip` and `-lcip` list them.

use super::NvmlCode;

/// Engine counts of a profile: SMs, copy engines, decoders, encoders, JPEG
/// decoders, optical flow accelerators (shared ones for compute instances).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Engines {
    pub sm: u32,
    pub ce: u32,
    pub dec: u32,
    pub enc: u32,
    pub jpeg: u32,
    pub ofa: u32,
}

/// A GPU or compute instance profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    pub id: u32,
    /// NVML's name, e.g. "MIG 1g.10gb".
    pub name: String,
    pub slices: u32,
    /// Most instances of the profile.
    pub total: u32,
    /// How many more could be made now.
    pub free: Result<u32, NvmlCode>,
    /// GPU instance profiles only (MiB).
    pub memory_mib: u64,
    /// GPU instance profiles only.
    pub p2p: bool,
    pub engines: Engines,
    /// Where an instance of it may sit (`-lgipp`, `-lcipp`); `None` when
    /// not read.
    pub placements: Option<Result<Vec<Placement>, NvmlCode>>,
}

/// A place an instance may take: its first slice and how many it spans.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    pub start: u32,
    pub size: u32,
}

/// An existing GPU or compute instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instance {
    pub id: u32,
    pub profile_id: u32,
    /// Its profile's name.
    pub name: String,
    pub start: u32,
    pub size: u32,
}

/// A GPU instance with what `-lci`/`-lcip` need of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuInstance {
    pub instance: Instance,
    /// Its compute instance profiles (for `-lcip`).
    pub ci_profiles: Vec<Profile>,
    /// Its compute instances (for `-lci`).
    pub compute_instances: Vec<Instance>,
}

/// One GPU's MIG state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GpuMig {
    /// MIG mode is off (or the GPU has no MIG).
    Disabled,
    /// Reading the GPU failed with this code.
    Failed(NvmlCode),
    /// MIG mode is on: the GPU instance profiles in nvidia-smi's order, and
    /// the GPU instances in profile order.
    Enabled {
        profiles: Vec<Profile>,
        instances: Vec<GpuInstance>,
    },
}

/// A selected GPU's MIG state, with its index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gpu {
    pub index: u32,
    pub mig: GpuMig,
}
