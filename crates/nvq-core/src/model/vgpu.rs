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

/// A vGPU licence as `nvmlVgpuInstanceGetLicenseInfo_v2` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct License {
    /// `NVML_GRID_LICENSE_STATE_*`: 0 unknown, 1 uninitialized, 2
    /// unlicensed (unrestricted), 3 unlicensed (restricted), 4 unlicensed,
    /// 5 licensed.
    pub state: u32,
    /// When it expires (UTC): year, month, day, hour, minute, second;
    /// `None` when NVML gives no expiry.
    pub expiry: Option<[u32; 6]>,
}

/// Three counters of a capture or encoder engine: sessions, average FPS,
/// average latency (µs).
pub type SessionStats = (u32, u32, u32);

/// One running vGPU of a host GPU, as `vgpu` and `vgpu -q` show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instance {
    /// `nvmlVgpuInstance_t`.
    pub id: u32,
    /// `nvmlVgpuInstanceGetVmID`: the id and whether it is a UUID (rather
    /// than a domain id).
    pub vm_id: Result<(String, bool), NvmlCode>,
    /// The VM's name as its hypervisor process names it (`None`: no
    /// process of the VM was found).
    pub vm_name: Option<String>,
    /// The `-uuid` of the VM's process, when one was found.
    pub vm_process_uuid: Option<String>,
    /// `nvmlVgpuInstanceGetType` and that type's name.
    pub type_id: Result<u32, NvmlCode>,
    /// `nvmlVgpuTypeGetName` of its type.
    pub type_name: Result<String, NvmlCode>,
    /// `nvmlVgpuInstanceGetUUID`.
    pub uuid: Result<String, NvmlCode>,
    /// `nvmlVgpuInstanceGetMdevUUID`.
    pub mdev_uuid: Result<String, NvmlCode>,
    /// `nvmlVgpuInstanceGetVmDriverVersion` (`Not Available` while no
    /// driver runs in the guest).
    pub guest_driver: Result<String, NvmlCode>,
    /// `nvmlVgpuInstanceGetLicenseInfo_v2`.
    pub license: Result<License, NvmlCode>,
    /// `nvmlVgpuInstanceGetGpuInstanceId` (`u32::MAX`: not MIG-backed).
    pub gpu_instance_id: Result<u32, NvmlCode>,
    /// `nvmlVgpuInstanceGetPlacementId` (drivers before R550 lack it).
    pub placement_id: Result<u32, NvmlCode>,
    /// `nvmlVgpuInstanceGetAccountingMode`.
    pub accounting_mode: Result<bool, NvmlCode>,
    /// `nvmlVgpuInstanceGetEccMode`.
    pub ecc_mode: Result<bool, NvmlCode>,
    /// The host GPU's `nvmlDeviceGetAccountingBufferSize`.
    pub accounting_buffer: Result<u32, NvmlCode>,
    /// `nvmlVgpuInstanceGetFrameRateLimit`.
    pub frame_rate_limit: Result<u32, NvmlCode>,
    /// `nvmlVgpuInstanceGetGpuPciId`: its bus id in the guest.
    pub pci_id: Result<String, NvmlCode>,
    /// `nvmlVgpuTypeGetFramebufferSize` of its type, bytes.
    pub fb_total: Result<u64, NvmlCode>,
    /// `nvmlVgpuInstanceGetFbUsage`, bytes.
    pub fb_used: Result<u64, NvmlCode>,
    /// Its `nvmlDeviceGetVgpuUtilization` sample: SM, memory, encoder,
    /// decoder percent (`Err`: the call failed or gave no sample for it).
    pub utilization: Result<[u32; 4], NvmlCode>,
    /// `nvmlVgpuInstanceGetEncoderStats`.
    pub encoder: Result<SessionStats, NvmlCode>,
    /// `nvmlVgpuInstanceGetFBCStats`.
    pub fbc: Result<SessionStats, NvmlCode>,
}

/// A vGPU host GPU with its running vGPUs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostGpu {
    /// nvidia-smi's index of the GPU.
    pub index: u32,
    /// NVML's PCI bus id.
    pub bus_id: String,
    /// `nvmlDeviceGetName`.
    pub name: Result<String, NvmlCode>,
    /// `nvmlDeviceGetUtilizationRates`' GPU percent.
    pub gpu_util: Result<u32, NvmlCode>,
    /// `nvmlDeviceGetActiveVgpus`, each read in full.
    pub vgpus: Result<Vec<Instance>, NvmlCode>,
}

/// What `vgpu` and `vgpu -q` print: the driver version and the host GPUs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Active {
    /// `nvmlSystemGetDriverVersion`.
    pub driver: Result<String, NvmlCode>,
    /// The driver's major version (0 when unknown).
    pub driver_major: u32,
    /// The selected vGPU host GPUs, in index order.
    pub gpus: Vec<HostGpu>,
}
