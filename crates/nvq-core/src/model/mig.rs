//! MIG's GPU and compute instances and their profiles, as `mig -lgi`, `-lci`,
//! `-lgip` and `-lcip` list them.

use super::NvmlCode;

/// Engine counts of a profile: SMs, copy engines, decoders, encoders, JPEG
/// decoders, optical flow accelerators (shared ones for compute instances).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Engines {
    /// Streaming multiprocessors.
    pub sm: u32,
    /// Copy engines.
    pub ce: u32,
    /// Video decoders (NVDEC).
    pub dec: u32,
    /// Video encoders (NVENC).
    pub enc: u32,
    /// JPEG decoders (NVJPG).
    pub jpeg: u32,
    /// Optical flow accelerators (NVOFA).
    pub ofa: u32,
}

/// A GPU or compute instance profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// NVML's profile id (the `ID` column of `-lgip`/`-lcip`, what `-cgi`/`-cci` take).
    pub id: u32,
    /// NVML's name, e.g. "MIG 1g.10gb".
    pub name: String,
    /// How many slices (of the GPU, or of its GPU instance) one instance takes.
    pub slices: u32,
    /// Most instances of the profile.
    pub total: u32,
    /// How many more could be made now.
    pub free: Result<u32, NvmlCode>,
    /// GPU instance profiles only (MiB).
    pub memory_mib: u64,
    /// GPU instance profiles only.
    pub p2p: bool,
    /// The engines one instance of the profile gets.
    pub engines: Engines,
    /// Where an instance of it may sit (`-lgipp`, `-lcipp`); `None` when
    /// not read.
    pub placements: Option<Result<Vec<Placement>, NvmlCode>>,
}

/// A place an instance may take: its first slice and how many it spans.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    /// The first slice, counting from 0.
    pub start: u32,
    /// How many slices it spans.
    pub size: u32,
}

/// An existing GPU or compute instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instance {
    /// The instance's id (GPU instance id, or compute instance id within its GPU instance).
    pub id: u32,
    /// The [`Profile::id`] it was made from.
    pub profile_id: u32,
    /// Its profile's name.
    pub name: String,
    /// Its placement's first slice.
    pub start: u32,
    /// How many slices its placement spans.
    pub size: u32,
}

/// A GPU instance with what `-lci`/`-lcip` need of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuInstance {
    /// The GPU instance itself.
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
        /// The GPU instance profiles (`-lgip`).
        profiles: Vec<Profile>,
        /// The GPU instances that exist (`-lgi`), each with its compute instances.
        instances: Vec<GpuInstance>,
    },
}

/// A selected GPU's MIG state, with its index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gpu {
    /// The GPU's NVML index.
    pub index: u32,
    /// Its MIG state.
    pub mig: GpuMig,
}
