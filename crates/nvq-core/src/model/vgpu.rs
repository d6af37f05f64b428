//! vGPU host state as `nvidia-smi vgpu -s` and `-c` list it: each GPU's
//! vGPU types (profiles), supported or creatable now.

use super::NvmlCode;

/// What a GPU says of vGPU (`nvmlDeviceGetVirtualizationMode`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Host {
    /// Not a vGPU host GPU (bare metal, pass-through, a guest's vGPU).
    No,
    /// A vGPU host GPU: the vGPU type names asked for, in NVML's order (a
    /// name that could not be read is its code), or the code of the list.
    Yes(Result<Vec<Result<String, NvmlCode>>, NvmlCode>),
}

/// One selected GPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gpu {
    /// NVML's PCI bus id, `00000000:01:00.0`.
    pub bus_id: String,
    /// Whether it is a vGPU host, and if so its vGPU types.
    pub host: Host,
}
